/* tests/results/test-published.c - `tandem validate`: CSV reading, the row mapping rules
 * of results/published.h, the summary arithmetic, and a run over the shipped
 * published-runs.csv.
 *
 * Data: tests/data/published/quoting.csv (CRLF line ends, quoted commas and quotes, an
 * embedded line break, empty and missing cells) and rows.csv (hand-written rows, one per
 * rule; each test says which row it reads). */
#include <math.h>
#include <string.h>

#include <glib.h>

#include "results/accuracy.h"
#include "results/published.h"
#include "shipped-csv.h"
#include "sim/predict.h"
#include "plan/memory.h"

static ResCsv *
load_data (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "published", name, NULL);
  g_autoptr (GError) error = NULL;
  ResCsv *csv = res_csv_load (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (csv);
  return csv;
}

/* The case of the row whose row_id cell is `id`. */
static ResPublishedCase *
case_for (const ResCsv *csv, const char *id)
{
  for (guint r = 0; r < res_csv_n_rows (csv); r++)
    if (g_str_equal (res_csv_get (csv, r, "row_id"), id))
      return res_published_case_new (csv, r);
  g_error ("no row %s", id);
  return NULL;
}

static void
assert_rel (double got, double want, double tol)
{
  g_assert_true (isfinite (got));
  g_assert_cmpfloat_with_epsilon (got / want, 1.0, tol);
}

/* ---- CSV ------------------------------------------------------------------------------ */

/* quoting.csv: header + 3 records + a blank last line, all CRLF. */
static void
test_csv_quoting (void)
{
  g_autoptr (ResCsv) csv = load_data ("quoting.csv");
  g_assert_cmpuint (csv->n_columns, ==, 5);
  g_assert_cmpstr (csv->columns[4], ==, "last");          /* no \r left on the last name */
  g_assert_cmpuint (res_csv_n_rows (csv), ==, 3);         /* the blank line is dropped */
  g_assert_cmpstr (res_csv_get (csv, 0, "model"), ==, "GPT, 175B");       /* quoted comma */
  g_assert_cmpstr (res_csv_get (csv, 0, "notes"), ==, "He said \"hi\"");  /* "" -> " */
  g_assert_cmpstr (res_csv_get (csv, 0, "empty"), ==, "");
  g_assert_cmpstr (res_csv_get (csv, 0, "last"), ==, "x");
  g_assert_cmpstr (res_csv_get (csv, 1, "notes"), ==, "line one\r\nline two");
  g_assert_cmpstr (res_csv_get (csv, 1, "last"), ==, "");
  g_assert_cmpstr (res_csv_get (csv, 2, "model"), ==, "");              /* "" is empty */
  g_assert_cmpstr (res_csv_get (csv, 2, "notes"), ==, "short");
  g_assert_cmpstr (res_csv_get (csv, 2, "last"), ==, "");               /* padded */
  g_assert_nonnull (csv->short_rows);                                   /* and listed */
  g_assert_cmpstr (res_csv_get (csv, 2, "no_such_column"), ==, "");
  g_assert_cmpint (res_csv_column (csv, "no_such_column"), ==, -1);
}

/* The same rules from memory: LF and lone CR line ends, a BOM, no final line end. */
static void
test_csv_inline (void)
{
  const char text[] = "\xEF\xBB\xBFrow_id,a,b\n1,\"x,\"\"y\"\"\",z\r2,,\"\"\r\n3,\"q\",\"w\"";
  g_autoptr (GError) error = NULL;
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (csv->columns[0], ==, "row_id");
  g_assert_cmpuint (res_csv_n_rows (csv), ==, 3);
  g_assert_cmpstr (res_csv_get (csv, 0, "a"), ==, "x,\"y\"");
  g_assert_cmpstr (res_csv_get (csv, 0, "b"), ==, "z");
  g_assert_cmpstr (res_csv_get (csv, 1, "a"), ==, "");
  g_assert_cmpstr (res_csv_get (csv, 1, "b"), ==, "");
  g_assert_cmpstr (res_csv_get (csv, 2, "a"), ==, "q");
  g_assert_cmpstr (res_csv_get (csv, 2, "b"), ==, "w");   /* quoted, no line end after */
}

/* A record with fewer fields than the header is read with its missing cells empty (some
 * writers drop trailing empty cells) and listed with its line, for validate's warning; a
 * file without one lists none. */
static void
test_csv_short_rows (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ResCsv) csv = res_csv_parse ("row_id,a,b\n1,2,3\n2,4\n", -1, "s.csv", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (res_csv_get (csv, 1, "a"), ==, "4");
  g_assert_cmpstr (res_csv_get (csv, 1, "b"), ==, "");
  g_assert_nonnull (csv->short_rows);
  g_assert_cmpuint (g_strv_length (csv->short_rows), ==, 1);
  g_assert_cmpstr (csv->short_rows[0], ==, "s.csv:3: 2 fields but the header has 3 columns; "
                   "the missing 1 read as empty (a line cut short or a missing comma? an "
                   "empty cell is written ,,)");
  g_autoptr (ResCsv) full = res_csv_parse ("row_id,a\n1,2\n", -1, "f.csv", &error);
  g_assert_no_error (error);
  g_assert_null (full->short_rows);
}

static void
test_csv_errors (void)
{
  static const struct { const char *text, *needle; } bad[] = {
    { "row_id,a\n1,\"open\n", "not closed" },
    { "row_id,a\n1,2,3\n", "3 fields but the header has 2" },
    { "row_id,a\n1,\"x\"y\n", "after the closing quote" },
    { "id,a\n1,2\n", "no row_id column" },
    { "", "empty file" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (ResCsv) csv = res_csv_parse (bad[i].text, -1, "bad.csv", &error);
      g_assert_null (csv);
      g_assert_error (error, RES_PUBLISHED_ERROR, RES_PUBLISHED_ERROR_PARSE);
      g_assert_nonnull (strstr (error->message, bad[i].needle));
      g_assert_nonnull (strstr (error->message, "bad.csv"));
    }
  g_autoptr (GError) error = NULL;
  g_assert_null (res_csv_load ("/nonexistent/published.csv", &error));
  g_assert_error (error, RES_PUBLISHED_ERROR, RES_PUBLISHED_ERROR_IO);
}

/* A row_id that is no positive whole number: the row is skipped with the cell quoted
 * and a hint, and its id reads as unknown (-1 inside, "-" and null outside), not as a
 * number nobody wrote. */
static void
test_csv_bad_row_id (void)
{
  static const char *const ids[] = { "-5", "1.5", "x", "0" };
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autofree char *text = g_strdup_printf ("row_id,model\n%s,GPT\n", ids[i]);
      g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
      g_assert_nonnull (csv);
      g_autoptr (ResPublishedCase) c = res_published_case_new (csv, 0);
      g_assert_false (c->ready);
      g_assert_cmpint (c->row_id, ==, -1);
      g_autofree char *want = g_strdup_printf ("row_id '%s' is not a whole number from 1 to "
                                               "2147483647 (hint: number the rows", ids[i]);
      if (strstr (c->skip_reason, want) == NULL)
        g_error ("'%s' lacks '%s'", c->skip_reason, want);
    }
}

/* One reading of row_id (res_published_row_id) for the mapping and --only: "1e1" was
 * predicted as row 10 while --only 10 dropped it (strtoll read 1 of "1e1"). The cells
 * "4.0", "1e1" and "4.5" are the numbers 4, 10 and 4.5; the first two whole, the third
 * refused as the mapping refuses it. */
static void
test_row_id_one_reading (void)
{
  static const struct { const char *cell; gboolean whole; gint64 id; } ids[] = {
    { "4.0", TRUE, 4 }, { "1e1", TRUE, 10 }, { "7", TRUE, 7 }, { "4.5", FALSE, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autofree char *text = g_strdup_printf ("row_id,model\n%s,GPT\n", ids[i].cell);
      g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
      g_assert_nonnull (csv);
      gint64 v = 0;
      g_assert_cmpint (res_published_row_id (csv, 0, &v), ==, ids[i].whole);
      g_autoptr (ResPublishedCase) c = res_published_case_new (csv, 0);
      g_assert_cmpint (c->row_id, ==, ids[i].whole ? ids[i].id : -1);
      if (!ids[i].whole)
        continue;
      g_assert_cmpint (v, ==, ids[i].id);
      /* --only ID keeps the row the mapping numbers ID, and only it */
      ResPublishedOptions opts = { .only_ids = &ids[i].id, .n_only_ids = 1 };
      g_autoptr (ResPublishedReport) r = res_published_validate (csv, &opts);
      g_assert_cmpuint (r->cases->len, ==, 1);
      g_assert_cmpint (((ResPublishedCase *) r->cases->pdata[0])->row_id, ==, ids[i].id);
    }
}

/* ---- mapping -------------------------------------------------------------------------- */

/* Row 1, the Llama 3 405B production run on 8,192 GPUs. */
static void
test_map_llama (void)
{
  g_autoptr (ResCsv) csv = load_data ("rows.csv");
  g_autoptr (ResPublishedCase) c = case_for (csv, "1");
  g_assert_null (c->skip_reason);
  g_assert_true (c->ready);
  g_assert_cmpstr (c->cluster_name, ==, "h100-24k");       /* 700W, HBM3 / 1:7 network */
  g_assert_cmpint (c->family, ==, RES_PUB_FAMILY_H100);
  g_assert_cmpint (c->model->mlp, ==, MODEL_MLP_SWIGLU);   /* "Llama" in the name */
  g_assert_false (c->model->tied_embeddings);
  g_assert_cmpuint (c->model->n_kv_heads, ==, 8);
  g_assert_cmpuint (c->model->ffn_hidden, ==, 53248);
  const Plan *p = &c->plan;
  g_assert_cmpint (p->tp, ==, 8);
  g_assert_cmpint (p->pp, ==, 16);
  g_assert_cmpint (p->dp, ==, 64);
  /* "interleaved (V not stated)": the smallest V >= 2 that splits 126 layers over
   * 16 x V chunks evenly or with one fewer on the first and last: V = 2, 32 chunks,
   * (126 + 2) / 32 - 1 = 3 on the first and last chunk, 4 between (Megatron-Core's
   * embedding and loss accounted in the split: 128 slots / 32 chunks = 4, one slot
   * each taken by the embedding and the loss); so stage 0 holds 3 + 4 = 7 layers,
   * stage 1 holds 4 + 4 = 8, stage 15 holds 4 + 3 = 7 */
  g_assert_cmpint (p->vpp, ==, 2);
  g_assert_cmpint (p->schedule, ==, PLAN_SCHED_INTERLEAVED_1F1B);
  g_assert_true (p->account_embedding);
  g_assert_true (p->account_loss);
  g_assert_cmpint (p->first_stage_layers, ==, -1);
  g_assert_cmpint (p->last_stage_layers, ==, -1);
  g_assert_cmpint (plan_chunk_layers (p, c->model, 0, 0), ==, 3);
  g_assert_cmpint (plan_chunk_layers (p, c->model, 15, 1), ==, 3);
  g_assert_cmpint (plan_stage_layers (p, c->model, 0), ==, 7);
  g_assert_cmpint (plan_stage_layers (p, c->model, 1), ==, 8);
  g_assert_cmpint (plan_stage_layers (p, c->model, 15), ==, 7);
  g_assert_cmpint (p->sharding, ==, PLAN_SHARD_ZERO2);     /* "ZeRO-2-like" */
  g_assert_true (p->sequence_parallel);                    /* empty, tp > 1 */
  g_assert_cmpint (p->micro_batch, ==, 1);                 /* empty */
  /* 2048 / (1 x 64) = 32 micro-batches */
  g_assert_cmpint (p->grad_accum, ==, 32);
  g_assert_cmpint (p->recompute, ==, PLAN_RECOMPUTE_NONE);
  g_assert_cmpint (p->compute_dtype, ==, PLAN_PREC_BF16);
  g_assert_cmpint (p->cp_comm, ==, PLAN_CP_ALLGATHER);     /* "K/V all-gathered" */
  g_assert_true (p->overlap_grad_reduce && p->overlap_param_gather);
  /* PaLM convention: N = 405,853,388,800 - 128256 x 16384 = 403,752,042,496;
   * 6N + 12 L H d s = 2,422,512,254,976 + 12 x 126 x 128 x 128 x 8192 (202,937,204,736)
   * = 2,625,449,459,712 FLOP/token; x 2048 x 8192 tokens / (430e12 x 8192 GPUs)
   * = 12.5045 s */
  g_assert_true (c->has_convention);
  g_assert_cmpint (c->convention, ==, MODEL_FLOPS_PALM);
  g_assert_cmpstr (c->measured_source, ==, "tflops_per_gpu (palm)");
  assert_rel (c->measured_step_s, 12.504466263930642, 1e-9);
  g_assert_cmpfloat (c->published_mfu_pct, ==, 43.0);
  g_autofree char *plan = res_published_case_plan_string (c);
  g_assert_cmpstr (plan, ==, "tp8.pp16.vpp2.dp64.mbs1.zero2");
}

/* Row 2: a GPT row with only TFLOP/s, Narayanan's 96 formula. */
static void
test_map_gpt_megatron96 (void)
{
  g_autoptr (ResCsv) csv = load_data ("rows.csv");
  g_autoptr (ResPublishedCase) c = case_for (csv, "2");
  g_assert_null (c->skip_reason);
  g_assert_cmpstr (c->cluster_name, ==, "selene");
  g_assert_cmpint (c->family, ==, RES_PUB_FAMILY_A100);
  g_assert_cmpint (c->model->mlp, ==, MODEL_MLP_GELU);     /* ffn empty: 4h, no "llama" */
  g_assert_cmpuint (c->model->ffn_hidden, ==, 4096);
  g_assert_cmpuint (c->model->n_kv_heads, ==, 16);         /* empty -> n_heads */
  g_assert_true (c->model->tied_embeddings);
  const Plan *p = &c->plan;
  g_assert_cmpint (p->cp, ==, 1);                          /* empty */
  g_assert_cmpint (p->dp, ==, 2);
  /* empty, tp 2, framework Megatron-LM: the megatron-lm-2021 stack's default, off
   * (--sequence-parallel is store_true, and came only in 2022) */
  g_assert_false (p->sequence_parallel);
  g_assert_cmpstr (c->stack->name, ==, "megatron-lm-2021");
  g_assert_cmpint (p->sharding, ==, PLAN_SHARD_NONE);      /* empty, framework Megatron-LM */
  g_assert_cmpint (p->recompute, ==, PLAN_RECOMPUTE_FULL);
  /* 64 / (2 x 2) = 16 micro-batches */
  g_assert_cmpint (p->grad_accum, ==, 16);
  /* 96 L h^2 (1 + s/6h + V/16Lh) = 96 x 16 x 1024^2 x (1 + 1024/6144 + 16384/262144)
   * = 96 x 16 x 1,048,576 x 59/48 = 1,979,711,488 FLOP/token; tokens 64 x 1024 = 65,536;
   * step = 1,979,711,488 x 65,536 / (100e12 x 8) = 0.162178 s */
  g_assert_cmpint (c->convention, ==, MODEL_FLOPS_MEGATRON96);
  g_assert_cmpstr (c->measured_source, ==, "tflops_per_gpu (megatron96)");
  assert_rel (c->measured_step_s, 0.16217796509696, 1e-12);
}

/* A TFLOP/s row that states no FLOP convention is read in the count of the framework it
 * names (the stack's tflops_convention): on Megatron-Core, Megatron-Core's
 * num_floating_point_operations, the same step as the row that names that count; "formula
 * not printed" and "convention not stated" alike. Skipped as before: a framework tandem has no stack for, 2021's
 * Megatron-LM (whose papers' count depends on the recompute), a text that names some other
 * count ("our own count", "HFU ..., formula not printed"). */
static void
test_map_convention_from_stack (void)
{
  const char *text =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,dp,micro_batch,"
    "global_batch,recompute,precision,framework,tflops_per_gpu,flops_convention\n"
    "1,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,Megatron-Core,100,\n"
    "2,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,Megatron-Core,100,"
    "MFU against the 312 TFLOP/s peak; formula not printed\n"
    "3,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,InternEvo,100,\n"
    "4,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,Megatron-Core,100,"
    "our own count\n"
    "5,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,Megatron-LM,100,\n"
    "6,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,Megatron-Core,100,"
    "\"HFU (hardware FLOPs incl. recompute), formula not printed\"\n"
    "7,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,Megatron-Core,100,"
    "Megatron-Core num_floating_point_operations\n"
    "8,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,Megatron-Core,100,"
    "TFLOPS / GPU (convention not stated on the page)\n";
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
  g_assert_nonnull (csv);
  g_autoptr (ResPublishedCase) stated = case_for (csv, "7");
  g_assert_null (stated->skip_reason);
  g_assert_cmpint (stated->convention, ==, MODEL_FLOPS_MCORE);
  /* ... and "convention not stated on the page" (NeMo's long-sequence page, an audit's
   * row: it was skipped) */
  static const char *const read[] = { "1", "2", "8" };
  for (guint i = 0; i < G_N_ELEMENTS (read); i++)
    {
      g_autoptr (ResPublishedCase) c = case_for (csv, read[i]);
      g_assert_null (c->skip_reason);
      g_assert_cmpint (c->convention, ==, MODEL_FLOPS_MCORE);
      g_assert_cmpstr (c->measured_source, ==, "tflops_per_gpu (mcore, the megatron-core stack's "
                                               "own count: no convention stated)");
      assert_rel (c->measured_step_s, stated->measured_step_s, 1e-12);
    }
  static const char *const skipped[] = { "3", "4", "5", "6" };
  for (guint i = 0; i < G_N_ELEMENTS (skipped); i++)
    {
      g_autoptr (ResPublishedCase) c = case_for (csv, skipped[i]);
      if (c->skip_reason == NULL || strstr (c->skip_reason, "flops_convention not recognised") == NULL)
        g_error ("row %s: %s", skipped[i], c->skip_reason ? c->skip_reason : "(read)");
    }
}

/* Forms an audit of unseen rows (7 Dec: MegaScale NSDI'24, NeMo's long-sequence tables, a
 * Megatron-Bridge recipe docstring) found skipped or misread, on the small GPT of the test
 * above (16 layers of 1024, seq 1024, vocab 16384; 64 sequences, 65,536 tokens, on 8 A100s
 * at 312 TFLOP/s):
 *  - an MFU whose count cites Narayanan et al. is of model FLOPs, the recompute left out:
 *    Korthikanti's 72 form, 72 x 16 x 1,048,576 x (1 + 1/6 + 1/12) = 1,509,949,440 FLOP a
 *    token, step = 1,509,949,440 x 65,536 / (0.50 x 312e12 x 8) = 0.0792917 s, where the
 *    cell calls it an MFU and cites them by name; a cell that says the recompute is
 *    counted, or writes their 96 formula out (SC'21's own "% of peak"; a "96" that is
 *    no formula, "1,296 GPUs", "96 layers", does not), keeps the 96 form, 1,979,711,488
 *    FLOP a token, 0.1039602 s;
 *  - "formula not given on the page" says no count, as "not printed": the stack's own;
 *  - ZeRO-2 on Megatron-LM is its distributed optimizer: megatron-core, zero1 (the 2021
 *    stack refused zero2; megatron-core's zero2 would reduce-scatter every micro-batch);
 *    "no ZeRO" keeps the 2021 stack;
 *  - a micro_batch "one" is 1 (skipped before), "One (see notes)" too. */
static void
test_map_audit_forms (void)
{
  const char *text =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,dp,micro_batch,"
    "global_batch,recompute,precision,framework,zero_stage_or_fsdp,mfu_pct,tflops_per_gpu,"
    "flops_convention\n"
    "1,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,Megatron-LM,,50,,"
    "\"MFU = observed throughput / peak, citing Narayanan et al.\"\n"
    "2,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,Megatron-LM,,50,,"
    "\"Narayanan et al., recompute counted\"\n"
    "3,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,NeMo,,,100,"
    "NeMo model TFLOPS / GPU (formula not given on the page)\n"
    "4,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,"
    "\"MegaScale (built on Megatron-LM)\",\"ZeRO-2 (optimizer states and gradients "
    "sharded)\",50,,Korthikanti et al.\n"
    "5,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,"
    "\"MegaScale (built on Megatron-LM)\",no ZeRO,50,,Korthikanti et al.\n"
    "6,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,one,64,full,fp16,NeMo,,,100,"
    "Megatron-Core num_floating_point_operations\n"
    "7,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,One (see notes),64,full,fp16,NeMo,,,"
    "100,Megatron-Core num_floating_point_operations\n"
    "8,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,one node,64,full,fp16,NeMo,,,100,"
    "Megatron-Core num_floating_point_operations\n"
    "9,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,Megatron-LM,,50,,"
    "\"Narayanan et al. SC'21: 96*B*s*L*h^2*(1+s/(6h)+V/(16Lh)); % of the 312 TFLOP/s "
    "peak\"\n"
    "10,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,Megatron-LM,,50,,"
    "\"MFU citing Narayanan et al. (1,296 GPUs)\"\n"
    "11,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,Megatron-LM,,50,,"
    "\"MFU citing Narayanan et al.; 96 layers, 96 heads\"\n"
    "12,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,Megatron-LM,,50,,"
    "\"MFU citing Narayanan et al.: 96 B s l h^2 (1 + s/6h + V/16lh)\"\n"
    "13,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,2,2,64,full,fp16,Megatron-LM,,50,,"
    "\"MFU following Narayanan et al. (96 x H100)\"\n";
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
  g_assert_nonnull (csv);
  g_autoptr (ResPublishedCase) c1 = case_for (csv, "1");
  g_assert_null (c1->skip_reason);
  g_assert_nonnull (strstr (c1->measured_source, "megatron72: an MFU leaves the recompute out"));
  assert_rel (c1->measured_step_s, 0.07929170392615384, 1e-12);
  g_autoptr (ResPublishedCase) c2 = case_for (csv, "2");
  g_assert_null (c2->skip_reason);
  g_assert_cmpstr (c2->measured_source, ==, "mfu_pct (megatron96)");
  assert_rel (c2->measured_step_s, 0.10396023403651282, 1e-12);
  /* SC'21's own "% of peak", its 96 formula written out and no MFU named: that count */
  g_autoptr (ResPublishedCase) c9 = case_for (csv, "9");
  g_assert_null (c9->skip_reason);
  g_assert_cmpstr (c9->measured_source, ==, "mfu_pct (megatron96)");
  assert_rel (c9->measured_step_s, 0.10396023403651282, 1e-12);
  /* a "96" that is no formula (a GPU count, the layers and heads of another model) leaves
   * the MFU the 72 form (any "96" kept the 96 form); "96 B s" written out is the 96 form */
  static const struct { const char *row; gboolean form96; } nr[] = {
    { "10", FALSE }, { "11", FALSE }, { "12", TRUE }, { "13", FALSE },   /* 13: "96 x H100" */
  };
  for (guint i = 0; i < G_N_ELEMENTS (nr); i++)
    {
      g_autoptr (ResPublishedCase) c = case_for (csv, nr[i].row);
      g_assert_null (c->skip_reason);
      if (nr[i].form96)
        g_assert_cmpstr (c->measured_source, ==, "mfu_pct (megatron96)");
      else if (strstr (c->measured_source, "megatron72: an MFU leaves the recompute out") == NULL)
        g_error ("row %s: %s, expected the 72 form", nr[i].row, c->measured_source);
      assert_rel (c->measured_step_s, nr[i].form96 ? 0.10396023403651282 : 0.07929170392615384,
                  1e-12);
    }
  g_autoptr (ResPublishedCase) c3 = case_for (csv, "3");
  g_assert_null (c3->skip_reason);
  g_assert_cmpint (c3->convention, ==, MODEL_FLOPS_MCORE);
  g_assert_nonnull (strstr (c3->measured_source, "the nemo stack's own count"));
  g_autoptr (ResPublishedCase) c4 = case_for (csv, "4");
  g_assert_null (c4->skip_reason);
  g_assert_cmpstr (c4->stack->name, ==, "megatron-core");
  g_assert_cmpint (c4->plan.sharding, ==, PLAN_SHARD_ZERO1);
  g_autoptr (ResPublishedCase) c5 = case_for (csv, "5");
  g_assert_null (c5->skip_reason);
  g_assert_cmpstr (c5->stack->name, ==, "megatron-lm-2021");
  g_assert_cmpint (c5->plan.sharding, ==, PLAN_SHARD_NONE);
  g_autoptr (ResPublishedCase) c6 = case_for (csv, "6");
  g_assert_null (c6->skip_reason);
  g_assert_cmpint (c6->plan.micro_batch, ==, 1);
  g_autoptr (ResPublishedCase) c7 = case_for (csv, "7");
  g_assert_null (c7->skip_reason);
  g_assert_cmpint (c7->plan.micro_batch, ==, 1);
  g_autoptr (ResPublishedCase) c8 = case_for (csv, "8");
  g_assert_nonnull (c8->skip_reason);
  g_assert_nonnull (strstr (c8->skip_reason, "no micro-batch size read"));
}

/* Row 6: MFU only, Korthikanti's 72 formula, A100 peak 312 TFLOP/s. */
static void
test_map_mfu_megatron72 (void)
{
  g_autoptr (ResCsv) csv = load_data ("rows.csv");
  g_autoptr (ResPublishedCase) c = case_for (csv, "6");
  g_assert_null (c->skip_reason);
  g_assert_cmpstr (c->cluster_name, ==, "selene");
  g_assert_cmpint (c->model->mlp, ==, MODEL_MLP_GELU);     /* ffn given as 4h */
  g_assert_true (c->plan.sequence_parallel);               /* "yes" */
  g_assert_cmpint (c->plan.recompute, ==, PLAN_RECOMPUTE_SELECTIVE);
  /* 72 L h^2 (1 + s/6h + V/12Lh) = 72 x 16 x 1,048,576 x (1 + 1/6 + 1/12)
   * = 1,509,949,440 FLOP/token; step = 1,509,949,440 x 65,536 / (0.50 x 312e12 x 8)
   * = 0.0792917 s */
  g_assert_cmpstr (c->measured_source, ==, "mfu_pct (megatron72)");
  assert_rel (c->measured_step_s, 0.07929170392615384, 1e-12);
}

/* Row 7: step_time_s "from memory, unverified" is missing, tokens/s total is used; an
 * A100 40GB goes to a100-40g-cluster; ZeRO-1; an unknown FLOP convention. */
static void
test_map_tokens_qualifier (void)
{
  g_autoptr (ResCsv) csv = load_data ("rows.csv");
  g_autoptr (ResPublishedCase) c = case_for (csv, "7");
  g_assert_null (c->skip_reason);
  g_assert_cmpstr (c->cluster_name, ==, "a100-40g-cluster");
  g_assert_cmpint (c->plan.sharding, ==, PLAN_SHARD_ZERO1);
  g_assert_cmpint (c->plan.micro_batch, ==, 8);
  g_assert_false (c->plan.sequence_parallel);              /* empty, tp 1 */
  g_assert_false (c->has_convention);                      /* "not stated" */
  /* 64 x 1024 / 327,680 tokens/s = 0.2 s */
  g_assert_cmpstr (c->measured_source, ==, "tokens_per_s_total");
  assert_rel (c->measured_step_s, 0.2, 1e-12);
}

/* Row 8: H100 outside the Llama 3 cluster, FP8, virtual stages, SP "no", FSDP. */
static void
test_map_h100_fp8_vpp (void)
{
  g_autoptr (ResCsv) csv = load_data ("rows.csv");
  g_autoptr (ResPublishedCase) c = case_for (csv, "8");
  g_assert_null (c->skip_reason);
  g_assert_cmpstr (c->cluster_name, ==, "dgx-h100-superpod");
  const Plan *p = &c->plan;
  g_assert_cmpint (p->compute_dtype, ==, PLAN_PREC_FP8);
  g_assert_cmpint (p->vpp, ==, 2);
  g_assert_cmpint (p->schedule, ==, PLAN_SCHED_INTERLEAVED_1F1B);
  g_assert_false (p->sequence_parallel);                   /* "no" */
  g_assert_cmpint (p->sharding, ==, PLAN_SHARD_ZERO3);     /* "FSDP FULL_SHARD" */
  g_assert_cmpint (c->convention, ==, MODEL_FLOPS_MCORE);  /* "NeMo/Megatron model FLOPs" */
  /* NeMo with tp 2: its launcher configs reduce gradients in bf16 and overlap TP
   * communication, but that overlap is of SP's collectives and this row says SP "no"
   * (Megatron refuses --tp-comm-overlap without SP), so none */
  g_assert_false (p->tp_comm_overlap);
  g_assert_cmpint (p->grad_dtype, ==, PLAN_PREC_BF16);
  /* 64 x 1024 / (4000 tokens/s/GPU x 16) = 1.024 s */
  g_assert_cmpstr (c->measured_source, ==, "tokens_per_s_per_gpu");
  assert_rel (c->measured_step_s, 1.024, 1e-12);
  g_autofree char *plan = res_published_case_plan_string (c);
  g_assert_cmpstr (plan, ==, "tp2.pp4.vpp2.dp2.mbs1.zero3.fp8");
}

/* Row 10: dp derived, "ZeRO-DP stage 2", recompute from the notes, step_time_s. */
static void
test_map_derived_dp (void)
{
  g_autoptr (ResCsv) csv = load_data ("rows.csv");
  g_autoptr (ResPublishedCase) c = case_for (csv, "10");
  g_assert_null (c->skip_reason);
  /* 16 / (2 x 1 x 1) = 8 */
  g_assert_cmpint (c->plan.dp, ==, 8);
  /* tp 2 but no framework named and no --tp-comm-overlap in the notes: no overlap, fp32
   * gradients (the default) */
  g_assert_false (c->plan.tp_comm_overlap);
  g_assert_cmpint (c->plan.grad_dtype, ==, PLAN_PREC_FP32);
  g_assert_cmpint (c->plan.sharding, ==, PLAN_SHARD_ZERO2);
  g_assert_cmpint (c->plan.recompute, ==, PLAN_RECOMPUTE_FULL);
  g_assert_cmpstr (c->measured_source, ==, "step_time_s");
  g_assert_cmpfloat (c->measured_step_s, ==, 2.5);
}

/* Rows that are skipped, with the reason that names what is wrong. */
static void
test_map_skips (void)
{
  static const struct { const char *row, *reason; } skips[] = {
    { "3", "parallel sizes do not multiply to the GPU count" },   /* 2 x 2 x 1 x 4 = 16 */
    { "4", "no cluster preset for gpu_type TPU v4" },
    { "5", "missing hidden" },
    { "9", "16 layers do not divide into pp x vpp = 5 chunks" },  /* 18 % 5 != 0 too */
    { "11", "tp not stated" },
  };
  g_autoptr (ResCsv) csv = load_data ("rows.csv");
  for (guint i = 0; i < G_N_ELEMENTS (skips); i++)
    {
      g_autoptr (ResPublishedCase) c = case_for (csv, skips[i].row);
      g_assert_false (c->ready);
      g_assert_nonnull (c->skip_reason);
      if (strstr (c->skip_reason, skips[i].reason) == NULL)
        g_error ("row %s: '%s' lacks '%s'", skips[i].row, c->skip_reason, skips[i].reason);
      g_assert_false (res_published_case_predict (c));
    }
}

/* n_gpus above the preset's devices: jobs over 1,024 H100s map to dgx-h100-superpod-64su,
 * which has 8 x 32 x 4 x 16 = 16,384 GPUs. A 32,768-GPU run used more of the same fabric:
 * the outermost level ('cluster', 16 pods) is repeated ceil(32768 / 16384) = 2 times, to
 * 32 pods = 32,768 GPUs, every level's bandwidth as in the preset. */
static void
test_map_too_many_gpus (void)
{
  const char text[] =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,dp,"
    "global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,32768,16,1024,16,16384,1024,8,1,4096,4096,1.0\n";
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
  g_autoptr (ResPublishedCase) c = res_published_case_new (csv, 0);
  g_assert_null (c->skip_reason);
  g_assert_cmpstr (c->cluster_name, ==, "dgx-h100-superpod-64su");
  g_assert_cmpuint (c->scaled_from, ==, 16384);
  g_assert_cmpuint (c->cluster->n_devices, ==, 32768);
  g_assert_cmpuint (c->cluster->n_levels, ==, 4);
  g_assert_cmpuint (c->cluster->levels[3].count, ==, 32);
  g_assert_cmpfloat (c->cluster->levels[3].bw_Bps, ==, 50e9);
  g_assert_true (res_published_case_predict (c));

  /* 20,000 A100 40 GB: a100-40g-cluster is 8 x 16 = 128; ceil(20000 / 128) = 157 repeats
   * of its outermost level: 16 x 157 = 2,512 servers = 20,096 GPUs */
  const char text2[] =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,dp,"
    "global_batch,step_time_s\n"
    "2,GPT,A100-SXM4-40GB,20000,16,1024,16,16384,1024,8,1,2500,2500,1.0\n";
  g_autoptr (ResCsv) csv2 = res_csv_parse (text2, -1, "inline", NULL);
  g_autoptr (ResPublishedCase) c2 = res_published_case_new (csv2, 0);
  g_assert_null (c2->skip_reason);
  g_assert_cmpuint (c2->scaled_from, ==, 128);
  g_assert_cmpuint (c2->cluster->n_devices, ==, 20096);
}

/* A notes cell that says "unfused RoPE" gives the plan --no-rope-fusion; otherwise RoPE
 * stays fused. */
static void
test_map_rope_unfused (void)
{
  const char text[] =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,dp,"
    "global_batch,step_time_s,notes\n"
    "1,GPT,H100-SXM-80GB,8,16,1024,16,16384,1024,1,1,8,8,1.0,\"[Unfused RoPE: the recipe]\"\n"
    "2,GPT,H100-SXM-80GB,8,16,1024,16,16384,1024,1,1,8,8,1.0,\"fused kernels\"\n";
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
  g_autoptr (ResPublishedCase) c1 = res_published_case_new (csv, 0);
  g_autoptr (ResPublishedCase) c2 = res_published_case_new (csv, 1);
  g_assert_null (c1->skip_reason);
  g_assert_true (c1->plan.no_rope_fusion);
  g_assert_false (c2->plan.no_rope_fusion);
}

/* ---- summary and prediction ----------------------------------------------------------- */

static ResPublishedCase *
fake_case (gint64 id, ResPubFamily family, double measured, double predicted)
{
  ResPublishedCase *c = g_new0 (ResPublishedCase, 1);
  plan_init_defaults (&c->plan);
  c->row_id = id;
  c->family = family;
  c->measured_step_s = measured;
  c->predicted_step_s = predicted;
  c->predicted = !isnan (predicted);
  c->err_pct = 100.0 * (predicted - measured) / measured;
  if (!c->predicted)
    c->skip_reason = g_strdup ("skipped");
  return c;
}

/* Errors +10% and -20%: MAPE (10 + 20) / 2 = 15%, max 20% (row 2); per family 10 and 20;
 * the skipped row counts only as skipped. */
static void
test_summary (void)
{
  ResPublishedCase *cases[] = {
    fake_case (1, RES_PUB_FAMILY_A100, 10.0, 11.0),   /* +10% */
    fake_case (2, RES_PUB_FAMILY_H100, 10.0, 8.0),    /* -20% */
    fake_case (3, RES_PUB_FAMILY_H100, 10.0, NAN),    /* skipped */
  };
  ResPublishedSummary s;
  res_published_summarize (cases, G_N_ELEMENTS (cases), &s);
  g_assert_cmpuint (s.n, ==, 2);
  g_assert_cmpuint (s.n_skipped, ==, 1);
  g_assert_cmpfloat_with_epsilon (cases[0]->err_pct, 10.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (cases[1]->err_pct, -20.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (s.mape_pct, 15.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (s.max_abs_err_pct, 20.0, 1e-9);
  g_assert_cmpint (s.max_err_row_id, ==, 2);
  g_assert_cmpuint (s.n_family[RES_PUB_FAMILY_A100], ==, 1);
  g_assert_cmpfloat_with_epsilon (s.mape_family_pct[RES_PUB_FAMILY_A100], 10.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (s.mape_family_pct[RES_PUB_FAMILY_H100], 20.0, 1e-9);
  g_assert_true (isnan (s.mape_family_pct[RES_PUB_FAMILY_OTHER]));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    res_published_case_free (cases[i]);

  ResPublishedSummary empty;
  res_published_summarize (NULL, 0, &empty);
  g_assert_cmpuint (empty.n, ==, 0);
  g_assert_true (isnan (empty.mape_pct));
  g_assert_cmpint (empty.max_err_row_id, ==, -1);
}

/* Held-out check rows ("[held out" in notes) are summarized apart: the dev summary keeps
 * row 1 (+10%) only; the held-out summary has rows 2 (-20%, b200) and 3 (+30%, h100):
 * MAPE (20 + 30) / 2 = 25%, max 30% at row 3. A skipped held-out row counts in
 * n_held_rows and n_skipped, not in n_held. Mapping: a notes cell with the tag sets
 * held_out, one without it does not. */
static void
test_summary_held_out (void)
{
  ResPublishedCase *cases[] = {
    fake_case (1, RES_PUB_FAMILY_A100, 10.0, 11.0),   /* +10%, dev */
    fake_case (2, RES_PUB_FAMILY_B200, 10.0, 8.0),    /* -20%, held out */
    fake_case (3, RES_PUB_FAMILY_H100, 10.0, 13.0),   /* +30%, held out */
    fake_case (4, RES_PUB_FAMILY_H100, 10.0, NAN),    /* skipped, held out */
  };
  for (guint i = 1; i < G_N_ELEMENTS (cases); i++)
    cases[i]->held_out = TRUE;
  ResPublishedSummary s;
  res_published_summarize (cases, G_N_ELEMENTS (cases), &s);
  g_assert_cmpuint (s.n, ==, 1);
  g_assert_cmpfloat_with_epsilon (s.mape_pct, 10.0, 1e-9);
  g_assert_cmpuint (s.n_family[RES_PUB_FAMILY_H100], ==, 0);
  g_assert_cmpuint (s.n_held, ==, 2);
  g_assert_cmpuint (s.n_held_rows, ==, 3);
  g_assert_cmpuint (s.n_skipped, ==, 1);
  g_assert_cmpfloat_with_epsilon (s.mape_held_pct, 25.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (s.max_abs_err_held_pct, 30.0, 1e-9);
  g_assert_cmpint (s.max_err_held_row_id, ==, 3);
  g_assert_cmpfloat_with_epsilon (s.mape_held_family_pct[RES_PUB_FAMILY_B200], 20.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (s.mape_held_family_pct[RES_PUB_FAMILY_H100], 30.0, 1e-9);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    res_published_case_free (cases[i]);

  const char text[] =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
    "step_time_s,notes\n"
    "1,GPT,A100-SXM-80GB,8,16,1024,16,1000,1024,2,1,8,1,\"[derived: x] [held out: a check row]\"\n"
    "2,GPT,A100-SXM-80GB,8,16,1024,16,1000,1024,2,1,8,1,held out of nothing\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", &error);
  g_assert_no_error (error);
  g_autoptr (ResPublishedCase) c1 = res_published_case_new (csv, 0);
  g_autoptr (ResPublishedCase) c2 = res_published_case_new (csv, 1);
  g_assert_true (c1->held_out);
  g_assert_false (c2->held_out);
}

/* --only 2,4 and --gpu-type: filters; row 2 predicts, row 4 (TPU) is skipped; the JSON
 * has the documented keys; the validation goes into a store. */
static void
test_validate_small (void)
{
  g_autoptr (ResCsv) csv = load_data ("rows.csv");
  const gint64 only[] = { 2, 4 };
  ResPublishedOptions opts = { .only_ids = only, .n_only_ids = G_N_ELEMENTS (only) };
  g_autoptr (ResPublishedReport) r = res_published_validate (csv, &opts);
  g_assert_cmpuint (r->cases->len, ==, 2);
  const ResPublishedCase *c2 = r->cases->pdata[0];
  g_assert_cmpint (c2->row_id, ==, 2);
  g_assert_true (c2->predicted);
  g_assert_cmpfloat (c2->predicted_step_s, >, 0);
  /* err = 100 (predicted - measured) / measured, by definition */
  g_assert_cmpfloat_with_epsilon (c2->err_pct, 100.0 * (c2->predicted_step_s
                                  - c2->measured_step_s) / c2->measured_step_s, 1e-9);
  g_assert_cmpuint (r->summary.n, ==, 1);
  g_assert_cmpuint (r->summary.n_skipped, ==, 1);
  g_assert_cmpfloat_with_epsilon (r->summary.mape_pct, fabs (c2->err_pct), 1e-9);
  /* Where the step goes: on each stage, every instant of the step is compute, exposed
   * communication (compute idle, something communicating) or bubble (neither), so
   * compute + bubble + the exposed terms is the stage's end; averaged over the stages it
   * cannot exceed the step (the last stage to end) and, with every stage running to near
   * the end of the step, it is within a few percent of it. */
  double parts = c2->predicted_compute_s + c2->predicted_bubble_s;
  for (int k = 0; k < PROG_COMM_N; k++)
    {
      g_assert_cmpfloat (c2->predicted_exposed_s[k], >=, 0.0);
      parts += c2->predicted_exposed_s[k];
    }
  g_assert_cmpfloat (c2->predicted_compute_s, >, 0.0);
  g_assert_cmpfloat (parts, <=, c2->predicted_step_s * (1 + 1e-9));
  g_assert_cmpfloat (parts, >=, 0.9 * c2->predicted_step_s);

  g_autoptr (JsonBuilder) b = json_builder_new ();
  res_published_report_to_json (r, b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  JsonObject *o = json_node_get_object (root);
  JsonArray *rows = json_object_get_array_member (o, "rows");
  g_assert_cmpuint (json_array_get_length (rows), ==, 1);
  JsonObject *row = json_array_get_object_element (rows, 0);
  g_assert_cmpint (json_object_get_int_member (row, "row_id"), ==, 2);
  for (const char *const *k = (const char *const[]) { "predicted_step_s", "measured_step_s",
                                                      "err_pct", "measured_source",
                                                      "predicted_compute_s",
                                                      "predicted_bubble_s",
                                                      "predicted_exposed_comm_s", NULL };
       *k != NULL; k++)
    g_assert_true (json_object_has_member (row, *k));
  JsonArray *skipped = json_object_get_array_member (o, "skipped");
  g_assert_cmpuint (json_array_get_length (skipped), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (skipped, 0),
                                                  "reason"), ==,
                   "no cluster preset for gpu_type TPU v4");
  JsonObject *sum = json_object_get_object_member (o, "summary");
  g_assert_cmpint (json_object_get_int_member (sum, "n"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (sum, "skipped"), ==, 1);
  g_assert_true (json_object_has_member (sum, "mape_pct"));
  g_assert_true (json_object_has_member (sum, "max_abs_err_pct"));
  JsonObject *dev = json_object_get_object_member (sum, "by_device");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (dev, "a100"),
                                               "n"), ==, 1);

  g_autoptr (GError) error = NULL;
  g_autoptr (ResStore) store = res_store_open (":memory:", &error);
  g_assert_no_error (error);
  gint64 id = res_published_report_store (r, store, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (id, >, 0);
  g_autoptr (ResRunRecord) rec = res_store_get_run (store, id, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rec->info.kind, ==, RES_KIND_VALIDATE);
  g_assert_cmpuint (rec->validations->len, ==, 1);
  const ResValidationRow *v = &g_array_index (rec->validations, ResValidationRow, 0);
  g_assert_cmpint (v->row_id, ==, 2);
  g_assert_cmpfloat_with_epsilon (v->err_pct, c2->err_pct, 1e-9);

  /* gpu_type filter, any case: rows 1 and 8 are the H100 rows */
  ResPublishedOptions h100 = { .gpu_type_substr = "h100" };
  g_autoptr (ResPublishedReport) rh = res_published_validate (csv, &h100);
  g_assert_cmpuint (rh->cases->len, ==, 2);
  g_assert_cmpint (((ResPublishedCase *) rh->cases->pdata[0])->row_id, ==, 1);
  g_assert_cmpint (((ResPublishedCase *) rh->cases->pdata[1])->row_id, ==, 8);
}

/* Micro-batch scaling: a GPT 1B on Selene at tp 2 pp 2, global batch 64, mbs 1, on 8, 16
 * and 32 GPUs (dp 2, 4, 8, so m = 64 / dp = 32, 16, 8), measured steps chosen on the line
 * step = 0.5 m + 2: 18, 10, 6 s. A fourth row with mbs 2 is alike but for the micro-batch
 * size, so it is not in the group; a fifth (TPU) is skipped and left out. */
static void
test_mb_scaling (void)
{
  const char text[] =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,micro_batch,"
    "global_batch,step_time_s\n"
    "1,GPT 1B,A100-SXM-80GB,8,16,1024,16,16384,1024,2,2,1,64,18\n"
    "2,GPT 1B,A100-SXM-80GB,16,16,1024,16,16384,1024,2,2,1,64,10\n"
    "3,GPT 1B,A100-SXM-80GB,32,16,1024,16,16384,1024,2,2,1,64,6\n"
    "4,GPT 1B,A100-SXM-80GB,16,16,1024,16,16384,1024,2,2,2,64,9\n"
    "5,GPT 1B,TPU v4,16,16,1024,16,16384,1024,2,2,1,64,9\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", &error);
  g_assert_no_error (error);
  g_autoptr (ResPublishedReport) r = res_published_validate (csv, NULL);
  g_assert_cmpuint (r->summary.n, ==, 4);
  g_assert_cmpuint (r->mb_scaling->len, ==, 1);
  const ResPublishedMbScaling *g = r->mb_scaling->pdata[0];
  g_assert_cmpuint (g->row_ids->len, ==, 3);
  const int want_m[] = { 32, 16, 8 };
  double m[3], t[3];
  for (guint k = 0; k < 3; k++)
    {
      const ResPublishedCase *c = r->cases->pdata[k];
      g_assert_cmpint (g_array_index (g->row_ids, gint64, k), ==, (gint64) k + 1);
      g_assert_cmpint (g_array_index (g->micro_batches, int, k), ==, want_m[k]);
      m[k] = want_m[k];
      t[k] = c->predicted_step_s;
    }
  /* the measured points lie on the line: the fit returns it */
  g_assert_cmpfloat_with_epsilon (g->measured_per_mb_s, 0.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (g->measured_fixed_s, 2.0, 1e-12);
  /* predicted: the least-squares line through (m, predicted step); mean m = 56/3,
   * slope = sum (m - mean)(t - mean t) / sum (m - mean)^2 */
  double mm = (m[0] + m[1] + m[2]) / 3, mt = (t[0] + t[1] + t[2]) / 3, sxy = 0, sxx = 0;
  for (int k = 0; k < 3; k++)
    sxy += (m[k] - mm) * (t[k] - mt), sxx += (m[k] - mm) * (m[k] - mm);
  assert_rel (g->predicted_per_mb_s, sxy / sxx, 1e-12);
  assert_rel (g->predicted_fixed_s, mt - sxy / sxx * mm, 1e-9);
  /* the per-micro-batch work dominates a pp 2 step of 8-32 micro-batches: the fixed part
   * (fill and drain of two stages, the DP all-reduce, the optimizer) is positive and
   * below the shortest step */
  g_assert_cmpfloat (g->predicted_fixed_s, >, 0.0);
  g_assert_cmpfloat (g->predicted_fixed_s, <, t[2]);
  assert_rel (g->per_mb_err_pct, 100.0 * (g->predicted_per_mb_s - 0.5) / 0.5, 1e-12);

  g_autoptr (JsonBuilder) b = json_builder_new ();
  res_published_report_to_json (r, b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  JsonArray *groups = json_object_get_array_member (json_node_get_object (root), "mb_scaling");
  g_assert_cmpuint (json_array_get_length (groups), ==, 1);
  JsonObject *go = json_array_get_object_element (groups, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (go, "row_ids")), ==, 3);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (go, "measured_fixed_s"), 2.0,
                                  1e-12);
}

/* The attention rule: a source or framework dated 2017-2022 (or SC'21), or a DeepSpeed
 * framework, ran unfused attention; a named FlashAttention, or anything later, flash.
 * Years inside arXiv numbers ("2201.11990", "2407.21783") or versions ("24.07") are not
 * years. */
static void
test_map_attention (void)
{
  const char text[] =
    "row_id,source,framework,notes,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,"
    "seq_len,tp,pp,global_batch,step_time_s\n"
    "1,\"Narayanan et al., SC'21\",Megatron-LM PTD,,GPT,A100-SXM-80GB,8,16,1024,16,1000,1024,2,1,8,1\n"
    "2,\"Smith et al. 2022, arXiv 2201.11990\",x,,GPT,A100-SXM-80GB,8,16,1024,16,1000,1024,2,1,8,1\n"
    "3,BLOOM README,Megatron-DeepSpeed,,GPT,A100-SXM-80GB,8,16,1024,16,1000,1024,2,1,8,1\n"
    "4,MosaicML 2022,\"llm-foundry (FSDP, FlashAttention)\",,GPT,A100-SXM-80GB,8,16,1024,16,1000,1024,2,1,8,1\n"
    "5,\"Llama 3 paper (arXiv 2407.21783)\",Meta,,GPT,A100-SXM-80GB,8,16,1024,16,1000,1024,2,1,8,1\n"
    "6,NeMo performance summary,NeMo 24.07,,GPT,A100-SXM-80GB,8,16,1024,16,1000,1024,2,1,8,1\n"
    "7,Megatron-LM README (2021-2024),Megatron-LM (2021),,GPT,A100-SXM-80GB,8,16,1024,16,1000,1024,2,1,8,1\n"
    "8,torchtitan (2024-04),torchtitan,,GPT,A100-SXM-80GB,8,16,1024,16,1000,1024,2,1,8,1\n";
  const PlanAttnBackend want[] = { PLAN_ATTN_UNFUSED, PLAN_ATTN_UNFUSED, PLAN_ATTN_UNFUSED,
                                   PLAN_ATTN_FLASH, PLAN_ATTN_FLASH, PLAN_ATTN_FLASH,
                                   PLAN_ATTN_UNFUSED, PLAN_ATTN_FLASH };
  g_autoptr (GError) error = NULL;
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (res_csv_n_rows (csv), ==, G_N_ELEMENTS (want));
  for (guint r = 0; r < G_N_ELEMENTS (want); r++)
    {
      g_autoptr (ResPublishedCase) c = res_published_case_new (csv, r);
      if (!c->ready)
        g_error ("row %u skipped: %s", r + 1, c->skip_reason);
      if (c->plan.attention_backend != want[r])
        g_error ("row %u: attention %s, expected %s", r + 1,
                 plan_attn_backend_name (c->plan.attention_backend),
                 plan_attn_backend_name (want[r]));
      g_autofree char *plan = res_published_case_plan_string (c);
      g_assert_true ((strstr (plan, ".unfused") != NULL) == (want[r] == PLAN_ATTN_UNFUSED));
    }
}

/* torchtitan's "selective (layer)" (selective_ac_option "2"): every second block fully
 * checkpointed, read as Megatron's block method over half of each chunk's layers. Row 382:
 * Llama 3 8B, 32 layers, pp 1 -> floor(32 / 2) = 16 layers recompute; row 386: Llama 2
 * 13B, 40 layers -> 20. "selective (op)" (row 383) and a torchtitan row's bare
 * "selective" (row 781, llama3_8b.toml's 'op') read as selective-op; a Megatron row's
 * "selective" (row 6 of rows.csv, above) stays the attention core. */
static void
test_map_torchtitan_layer_ac (void)
{
  g_autoptr (ResCsv) csv = shipped_csv ();
  const struct { const char *id; int half; } rows[] = { { "382", 16 }, { "386", 20 } };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = case_for (csv, rows[i].id);
      g_assert_null (c->skip_reason);
      g_assert_cmpint (c->plan.recompute, ==, PLAN_RECOMPUTE_FULL);
      g_assert_cmpint (c->plan.recompute_method, ==, PLAN_RECOMPUTE_BLOCK);
      g_assert_cmpint (c->plan.recompute_num_layers, ==, rows[i].half);
    }
  g_autoptr (ResPublishedCase) op = case_for (csv, "383");
  g_assert_cmpint (op->plan.recompute, ==, PLAN_RECOMPUTE_SELECTIVE_OP);
  g_autoptr (ResPublishedCase) bare = case_for (csv, "781");
  g_assert_null (bare->skip_reason);
  g_assert_cmpint (bare->plan.recompute, ==, PLAN_RECOMPUTE_SELECTIVE_OP);
}

/* Nemotron-4 340B (rows 86-88, NeMo 24.07): its training config sets hidden, attention
 * and FFN dropout to 0.0 (NeMo-Framework-Launcher nemotron_340b.yaml), so the model says
 * no dropout and no masks are stored, though its row maps to a GeLU-class MLP (ffn 4h);
 * a GPT row (row 2 of rows.csv) keeps Megatron's default dropout. */
static void
test_map_nemotron_no_dropout (void)
{
  g_autoptr (ResCsv) csv = shipped_csv ();
  for (int id = 86; id <= 88; id++)
    {
      char key[8];
      g_snprintf (key, sizeof key, "%d", id);
      g_autoptr (ResPublishedCase) c = case_for (csv, key);
      g_assert_null (c->skip_reason);
      g_assert_cmpint (c->model->mlp, ==, MODEL_MLP_GELU);
      g_assert_true (c->model->no_dropout);
      g_assert_false (plan_dropout (c->model, &c->plan));
    }
  g_autoptr (ResCsv) rows = load_data ("rows.csv");
  g_autoptr (ResPublishedCase) gpt = case_for (rows, "2");
  g_assert_false (gpt->model->no_dropout);
  g_assert_true (plan_dropout (gpt->model, &gpt->plan));
}

/* The planner's view of a row whose V is not stated (res_published_case_v_sweep). Rows
 * 1 and 2 (Llama 3 405B: 126 layers, pp 16, "interleaved (V not stated)"): by hand,
 * 126 splits over none of 16 / 32 / 64 / 128 chunks but 126 + 2 = 128 (embedding and
 * loss in a slot each) over all four, so V = 1, 2, 4, 8 are all swept; validate's own
 * rule takes the chunking of the row's stack (framework "Meta internal (4D parallel,
 * NCCLX)" -> meta-llama3, defaults.pp_layers_per_chunk 1: 128 slots / 16 stages = V = 8),
 * so the sweep's V = 8 step is the validate prediction; the best is the fastest of those
 * that fit. Two rows, so the micro-batch fit at each V
 * is exact: per micro-batch (step(m 32) - step(m 16)) / 16, fixed 2 step(16) - step(32).
 * A row with no interleaving (row 4, the Megatron-LM README 1.7B, pp 1) gets no sweep. */
static void
test_v_sweep (void)
{
  g_autoptr (ResCsv) csv = shipped_csv ();
  const gint64 ids[] = { 1, 2, 4 };
  ResPublishedOptions opts = { 0 };
  opts.only_ids = ids;
  opts.n_only_ids = G_N_ELEMENTS (ids);
  g_autoptr (ResPublishedReport) r = res_published_validate (csv, &opts);
  g_assert_cmpuint (r->cases->len, ==, 3);
  const ResPublishedCase *c1 = r->cases->pdata[0], *c2 = r->cases->pdata[1];
  for (guint i = 0; i < 2; i++)
    {
      const ResPublishedCase *c = r->cases->pdata[i];
      const ResPubVSweep *w = &c->v_sweep;
      g_assert_true (c->predicted && c->vpp_unstated);
      g_assert_cmpstr (c->stack->name, ==, "meta-llama3");
      g_assert_cmpint (c->plan.vpp, ==, 8);
      g_assert_cmpint (w->n, ==, 4);
      const int want[] = { 1, 2, 4, 8 };
      int best = -1;
      for (int k = 0; k < 4; k++)
        {
          g_assert_cmpint (w->v[k], ==, want[k]);
          g_assert_true (w->step_s[k] > 0 && w->mfu_pct[k] > 0 && w->peak_bytes[k] > 0);
          if (w->fits[k] && (best < 0 || w->step_s[k] < w->step_s[best]))
            best = k;
        }
      assert_rel (w->step_s[3], c->predicted_step_s, 1e-12);
      assert_rel (w->mfu_pct[3], c->predicted_mfu_pct[MODEL_FLOPS_PALM], 1e-12);
      g_assert_cmpint (w->best, ==, best);
      /* MFU x step is the row's fixed work over the peak: the same at every V */
      for (int k = 1; k < 4; k++)
        assert_rel (w->mfu_pct[k] * w->step_s[k], w->mfu_pct[0] * w->step_s[0], 1e-9);
    }
  /* V = 8 on 128 slots: 16 x 8 one-slot chunks; the first chunk of stage 0 holds the
   * embedding alone (its slot, 0 layers) and the last of stage 15 the output layer and
   * loss alone, the paper's Sec. 3.3.2; stage 0 holds 0 + 7 x 1 = 7 layers, stage 1
   * 8, stage 15 7 */
  g_assert_true (c1->plan.account_embedding && c1->plan.account_loss);
  g_assert_cmpint (plan_chunk_layers (&c1->plan, c1->model, 0, 0), ==, 0);
  g_assert_cmpint (plan_chunk_layers (&c1->plan, c1->model, 0, 1), ==, 1);
  g_assert_cmpint (plan_chunk_layers (&c1->plan, c1->model, 15, 7), ==, 0);
  g_assert_cmpint (plan_stage_layers (&c1->plan, c1->model, 0), ==, 7);
  g_assert_cmpint (plan_stage_layers (&c1->plan, c1->model, 1), ==, 8);
  g_assert_cmpint (plan_stage_layers (&c1->plan, c1->model, 15), ==, 7);
  const ResPublishedCase *c4 = r->cases->pdata[2];
  g_assert_false (c4->vpp_unstated);
  g_assert_cmpint (c4->v_sweep.n, ==, 0);
  g_assert_cmpint (c4->v_sweep.best, ==, -1);

  g_assert_cmpuint (r->mb_scaling->len, ==, 1);
  const ResPublishedMbScaling *g = r->mb_scaling->pdata[0];
  g_assert_cmpint (g->n_vs, ==, 4);
  for (int k = 0; k < 4; k++)
    {
      g_assert_cmpint (g->vs[k], ==, c1->v_sweep.v[k]);
      assert_rel (g->predicted_per_mb_by_v_s[k],
                  (c1->v_sweep.step_s[k] - c2->v_sweep.step_s[k]) / 16, 1e-9);
      assert_rel (g->predicted_fixed_by_v_s[k],
                  2 * c2->v_sweep.step_s[k] - c1->v_sweep.step_s[k], 1e-9);
    }
  assert_rel (g->predicted_per_mb_by_v_s[3], g->predicted_per_mb_s, 1e-9);
}

/* Every published run that happened was a plan its framework offered: each row of the
 * shipped CSV (dev and held-out) that maps is a plan its stack accepts (plan_check_stack,
 * as predict and search apply it: each preset's "offers"). A refusal here
 * means a stack's "offers" or the row's reading is wrong. The stacks' own refusals, on
 * rows made up for it: llm-foundry has no pipeline parallelism, DeepSpeed's pipeline
 * engine refuses ZeRO-2/3 ("ZeRO-2 and ZeRO-3 are incompatible with pipeline
 * parallelism"), torchtitan has no ZeRO-1, Meta's stack lays ranks out [TP, CP, PP, DP]. */
static void
test_published_offered (void)
{
  g_autoptr (ResCsv) csv = shipped_csv ();
  guint checked = 0;
  for (guint i = 0; i < res_csv_n_rows (csv); i++)
    {
      g_autoptr (ResPublishedCase) c = res_published_case_new (csv, i);
      if (!c->ready)
        continue;
      g_autoptr (GError) error = NULL;
      if (!plan_check_stack (&c->plan, c->stack, &error))
        g_error ("row %u (%s): %s", i + 1, c->stack->name, error->message);
      checked++;
    }
  g_assert_cmpuint (checked, >=, 200);
  static const struct {
    const char *stack; int pp, cp; PlanSharding sh; PlanSchedule sched; PlanCpComm cpc;
    const char *why, *other;
  } refused[] = {
    { "llm-foundry", 2, 1, PLAN_SHARD_ZERO3, PLAN_SCHED_1F1B, PLAN_CP_P2P,
      "--pp 2: the llm-foundry stack has no pipeline parallelism", "megatron-core" },
    { "deepspeed", 2, 1, PLAN_SHARD_ZERO3, PLAN_SCHED_1F1B, PLAN_CP_P2P,
      "--sharding zero3 with --pp 2: the deepspeed stack does not combine them",
      "megatron-core" },
    { "torchtitan", 1, 1, PLAN_SHARD_ZERO1, PLAN_SCHED_1F1B, PLAN_CP_P2P,
      "--sharding zero1: the torchtitan stack does not offer it", "megatron-core" },
    { "meta-llama3", 2, 1, PLAN_SHARD_ZERO2, PLAN_SCHED_1F1B, PLAN_CP_P2P,
      "the meta-llama3 stack lays ranks out as tp-cp-ep-pp-dp", "megatron-core" },
    { "megatron-core", 2, 1, PLAN_SHARD_ZERO1, PLAN_SCHED_GPIPE, PLAN_CP_P2P,
      "--schedule GPipe: the megatron-core stack does not offer it", "torchtitan" },
    { "deepspeed", 1, 2, PLAN_SHARD_ZERO1, PLAN_SCHED_1F1B, PLAN_CP_P2P,
      "--cp-comm-type p2p: the deepspeed stack does not offer it", "megatron-core" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (refused); k++)
    {
      g_autoptr (FwStack) st = fw_stack_load_preset (refused[k].stack, NULL);
      g_assert_nonnull (st);
      Plan p;
      plan_init_defaults (&p);
      p.world_size = 16;
      p.pp = refused[k].pp, p.cp = refused[k].cp;
      p.dp = 16 / (p.pp * p.cp);
      p.sharding = refused[k].sh, p.schedule = refused[k].sched, p.cp_comm = refused[k].cpc;
      g_autoptr (GError) error = NULL;
      g_assert_false (plan_check_stack (&p, st, &error));
      if (strstr (error->message, refused[k].why) == NULL)
        g_error ("%s: '%s' lacks '%s'", refused[k].stack, error->message, refused[k].why);
      /* the same plan on a stack that offers it is accepted */
      g_autoptr (FwStack) other = fw_stack_load_preset (refused[k].other, NULL);
      if (g_str_equal (refused[k].other, "torchtitan"))
        p.sharding = PLAN_SHARD_ZERO3;   /* torchtitan's GPipe plan shards as it offers */
      g_clear_error (&error);
      g_assert_true (plan_check_stack (&p, other, &error));
      plan_clear (&p);
    }
}

/* The shipped calibration set, end to end: at least 60 rows predicted, every error
 * finite. */
static void
test_published_runs (void)
{
  g_autoptr (ResCsv) csv = shipped_csv ();
  g_autoptr (ResPublishedReport) r = res_published_validate (csv, NULL);
  g_assert_cmpuint (r->cases->len, ==, res_csv_n_rows (csv));
  g_assert_cmpuint (r->summary.n, >=, 60);
  g_assert_cmpuint (r->summary.n + r->summary.n_moe + r->summary.n_held + r->summary.n_skipped,
                    ==, r->cases->len);
  for (guint i = 0; i < r->cases->len; i++)
    {
      const ResPublishedCase *c = r->cases->pdata[i];
      if (c->predicted)
        {
          g_assert_true (isfinite (c->err_pct));
          g_assert_cmpfloat (c->measured_step_s, >, 0);
        }
      else
        g_assert_nonnull (c->skip_reason);
    }
  g_assert_true (isfinite (r->summary.mape_pct));
  /* data/accuracy.json, which predict and search quote, is this validation's figures:
   * every class's row count and ranking count equal, every mean and largest error within
   * the file's rounding (two decimals: 0.005) */
  {
    ResAccuracy now, file;
    res_accuracy_from_report (r, &now);
    res_accuracy_load (&file);
    g_assert_true (file.loaded);
    g_autofree char *fresh = res_accuracy_to_json (&now);
#define STALE(what) g_error ("data/accuracy.json is stale (%s): regenerate it with "          \
                             "build/cli/tandem validate data/published-runs.csv --no-db "      \
                             "--accuracy-json > data/accuracy.json; it should read:\n%s",      \
                             what, fresh)
    const ResAccClass *a[2 * RES_PUB_FAMILY_N + 1], *b[2 * RES_PUB_FAMILY_N + 1];
    for (int f = 0; f < RES_PUB_FAMILY_N; f++)
      {
        a[2 * f] = &now.dense_dev[f], b[2 * f] = &file.dense_dev[f];
        a[2 * f + 1] = &now.dense_held[f], b[2 * f + 1] = &file.dense_held[f];
      }
    a[2 * RES_PUB_FAMILY_N] = &now.moe, b[2 * RES_PUB_FAMILY_N] = &file.moe;
    for (int k = 0; k <= 2 * RES_PUB_FAMILY_N; k++)
      if (a[k]->n != b[k]->n
          || (a[k]->n > 0 && (fabs (a[k]->mape_pct - b[k]->mape_pct) > 0.0051
                              || fabs (a[k]->max_abs_err_pct - b[k]->max_abs_err_pct) > 0.0051
                              || !(fabs (a[k]->mean_err_pct - b[k]->mean_err_pct) <= 0.0051))))
        STALE ("a class's rows or errors");
    if (now.n_stacks != file.n_stacks)
      STALE ("the stacks");
    for (guint k = 0; k < now.n_stacks; k++)
      {
        const ResAccStack *x = &now.stacks[k], *y = NULL;
        for (guint j = 0; j < file.n_stacks; j++)
          if (g_str_equal (file.stacks[j].name, x->name))
            y = &file.stacks[j];
        if (y == NULL)
          STALE ("a stack");
        const ResAccClass *xc[2] = { &x->dense, &x->moe }, *yc[2] = { &y->dense, &y->moe };
        for (int q = 0; q < 2; q++)
          if (xc[q]->n != yc[q]->n
              || (xc[q]->n > 0 && fabs (xc[q]->mape_pct - yc[q]->mape_pct) > 0.0051))
            STALE ("a stack's rows or errors");
      }
    if (now.pairs != file.pairs || now.ordered != file.ordered
        || now.pairs_apart != file.pairs_apart || now.ordered_apart != file.ordered_apart)
      STALE ("the ranking");
    if (!file.has_devices || now.n_devices != file.n_devices)
      STALE ("the devices");
    for (guint k = 0; k < now.n_devices; k++)
      if (res_accuracy_device_runs (&file, now.devices[k].name) != now.devices[k].n)
        STALE ("a device's runs");
#undef STALE
    /* what predict says for a dense H100 plan, a MoE plan and a device with no row */
    g_autofree char *h = res_accuracy_sentence (&file, "H100-SXM5-80GB", NULL, FALSE);
    g_autofree char *want = g_strdup_printf ("dense runs on h100 were predicted with %.1f%% "
                                             "mean error on %u dev and %.1f%% on %u held-out",
                                             file.dense_dev[RES_PUB_FAMILY_H100].mape_pct,
                                             file.dense_dev[RES_PUB_FAMILY_H100].n,
                                             file.dense_held[RES_PUB_FAMILY_H100].mape_pct,
                                             file.dense_held[RES_PUB_FAMILY_H100].n);
    g_assert_true (g_str_has_prefix (h, want));
    g_autofree char *m = res_accuracy_sentence (&file, "H100-SXM5-80GB", NULL, TRUE);
    g_assert_true (g_str_has_prefix (m, "weak: mixture-of-experts runs"));
    /* a stack with at least RES_ACC_MIN_STACK_ROWS runs of the kind adds its own figure,
     * weak above 10% (DeepSpeed's dense rows: the SC'21 ZeRO-3 and BLOOM / MT-NLG runs),
     * and sets the typical error where it is the larger */
    const ResAccStack *ds = NULL;
    for (guint j = 0; j < file.n_stacks; j++)
      if (g_str_equal (file.stacks[j].name, "deepspeed"))
        ds = &file.stacks[j];
    g_assert_nonnull (ds);
    g_assert_cmpuint (ds->dense.n, >=, RES_ACC_MIN_STACK_ROWS);
    g_autofree char *d = res_accuracy_sentence (&file, "A100-SXM4-80GB", "deepspeed", FALSE);
    g_autofree char *dwant = g_strdup_printf ("; with the deepspeed stack %.1f%% on %u%s",
                                              ds->dense.mape_pct, ds->dense.n,
                                              ds->dense.mape_pct > 10 ? ": weak" : "");
    g_assert_true (g_str_has_suffix (d, dwant));
    g_assert_cmpfloat (res_accuracy_typical_pct (&file, "A100-SXM4-80GB", "deepspeed", FALSE),
                       ==, MAX (ds->dense.mape_pct,
                                file.dense_dev[RES_PUB_FAMILY_A100].mape_pct));
    g_autofree char *o = res_accuracy_sentence (&file, "MI300X", NULL, FALSE);
    g_assert_true (g_str_has_prefix (o, "no published run on this device family"));
    /* a part of a family with runs but none of them on it (the H100 PCIe card, whose
     * preset no published row maps to) is told that the figure is its family's; the SXM
     * part the H100 rows ran on is not */
    g_assert_cmpuint (res_accuracy_device_runs (&file, "H100-PCIe-80GB"), ==, 0);
    g_assert_cmpuint (res_accuracy_device_runs (&file, "H100-SXM5-80GB"), >, 0);
    g_autofree char *pcie = res_accuracy_sentence (&file, "H100-PCIe-80GB", NULL, FALSE);
    g_assert_true (g_str_has_prefix (pcie, want));
    g_assert_true (g_str_has_suffix (pcie, " (none on H100-PCIe-80GB itself: its family's "
                                           "figure)"));
    g_assert_null (strstr (h, "itself"));
    /* the typical error: held-out where the family has held-out rows (H100), else dev
     * (A100), MoE's for MoE */
    g_assert_cmpfloat (res_accuracy_typical_pct (&file, "H100-SXM5-80GB", NULL, FALSE), ==,
                       file.dense_held[RES_PUB_FAMILY_H100].mape_pct);
    g_assert_cmpfloat (res_accuracy_typical_pct (&file, "A100-SXM4-80GB", NULL, FALSE), ==,
                       file.dense_dev[RES_PUB_FAMILY_A100].mape_pct);
    g_assert_cmpfloat (res_accuracy_typical_pct (&file, "B200", NULL, TRUE), ==, file.moe.mape_pct);
    /* the direction where a class leans one way (res_accuracy_bias_pct): errors -10, -12,
     * -14, -8, +4 % give a mean absolute error of 48 / 5 = 9.6% and a signed mean of
     * -40 / 5 = -8.0%: |-8.0| >= 3 and >= 0.4 x 9.6 = 3.84, so the sentence says "on
     * average 8.0% too fast"; +4, -4, +3, -3, +5 (mean +1.0, under 3) and a class of four
     * runs (under RES_ACC_MIN_BIAS_ROWS) say nothing of a direction */
    ResAccuracy syn;
    memset (&syn, 0, sizeof syn);
    syn.loaded = TRUE;
    for (int f = 0; f < RES_PUB_FAMILY_N; f++)
      {
        syn.dense_dev[f] = (ResAccClass) { 0, NAN, NAN, NAN };
        syn.dense_held[f] = (ResAccClass) { 0, NAN, NAN, NAN };
      }
    syn.moe = (ResAccClass) { 0, NAN, NAN, NAN };
    syn.dense_held[RES_PUB_FAMILY_B200] = (ResAccClass) { 5, 9.6, 14.0, -8.0 };
    g_assert_cmpfloat (res_accuracy_bias_pct (&syn.dense_held[RES_PUB_FAMILY_B200]), ==, -8.0);
    g_autofree char *bs = res_accuracy_sentence (&syn, "B200", NULL, FALSE);
    g_assert_cmpstr (bs, ==, "dense runs on b200 were predicted with 9.6% mean error on 5 "
                     "held-out published runs (data/published-runs.csv), on average 8.0% too "
                     "fast: expect a slower run");
    const ResAccClass even = { 5, 3.8, 5.0, 1.0 }, few = { 4, 9.6, 14.0, -8.0 };
    g_assert_false (isfinite (res_accuracy_bias_pct (&even)));
    g_assert_false (isfinite (res_accuracy_bias_pct (&few)));
    /* and the file's own classes: a biased one's sentence carries it */
    const ResAccClass *bh = &file.dense_held[RES_PUB_FAMILY_B200];
    if (isfinite (res_accuracy_bias_pct (bh)))
      {
        g_autofree char *fb = res_accuracy_sentence (&file, "B200", NULL, FALSE);
        g_autofree char *fw = g_strdup_printf (", on average %.1f%% too %s", fabs (bh->mean_err_pct),
                                               bh->mean_err_pct < 0 ? "fast" : "slow");
        g_assert_nonnull (strstr (fb, fw));
      }
  }
  g_test_message ("published-runs.csv: %u predicted, %u skipped, MAPE %.1f%%, max %.1f%% "
                  "(row %" G_GINT64_FORMAT ")", r->summary.n, r->summary.n_skipped,
                  r->summary.mape_pct, r->summary.max_abs_err_pct, r->summary.max_err_row_id);

  /* Accuracy against the published measurements, with the per-device defaults of
   * sim/cost.c (fitted by tools/fit-published.py). The targets: MAPE <= 10% over
   * the predicted rows (reached: 7.3%); <= 5% on H100 rows (reached: 4.97%); Llama 3
   * Table 4 within 3 MFU points of 43 / 41 / 38% (reached for the 16K-GPU rows, 40.2 and
   * 38.1; the 8K-GPU row predicts 48.0, not asserted). A100 rows: 7.90% (8.70% before the
   * 2021-2022 rows ran unfused attention), bounded at 8.5 as a regression guard. */
  g_assert_cmpfloat (r->summary.mape_pct, <=, 10.0);
  g_assert_cmpfloat (r->summary.mape_family_pct[RES_PUB_FAMILY_H100], <=, 5.0);
  g_assert_cmpfloat (r->summary.mape_family_pct[RES_PUB_FAMILY_A100], <=, 8.5);
  /* Llama 3 Table 4's 8K and 16K-GPU runs differ only in dp (64, 128) and so in m (32,
   * 16): one micro-batch scaling group whose measured per-micro-batch time is the
   * difference of the two steps over 16 micro-batches. */
  const ResPublishedCase *l1 = r->cases->pdata[0], *l2 = r->cases->pdata[1];
  g_assert_cmpint (l1->row_id, ==, 1);
  g_assert_cmpint (l2->row_id, ==, 2);
  const ResPublishedMbScaling *lg = NULL;
  for (guint i = 0; i < r->mb_scaling->len; i++)
    {
      const ResPublishedMbScaling *g = r->mb_scaling->pdata[i];
      if (g_array_index (g->row_ids, gint64, 0) == 1)
        lg = g;
    }
  g_assert_nonnull (lg);
  g_assert_cmpuint (lg->row_ids->len, ==, 2);
  /* a series is one plan but for dp and the batch: rows 833 (four pipeline schedules a
   * step, NeMo AutoModel's local batches) and 834 (one) were fitted together, "fixed
   * -1.717 s measured" (audit of 6 Dec) */
  for (guint i = 0; i < r->mb_scaling->len; i++)
    {
      const ResPublishedMbScaling *g = r->mb_scaling->pdata[i];
      gboolean has833 = FALSE, has834 = FALSE;
      for (guint k = 0; k < g->row_ids->len; k++)
        {
          has833 |= g_array_index (g->row_ids, gint64, k) == 833;
          has834 |= g_array_index (g->row_ids, gint64, k) == 834;
        }
      g_assert_false (has833 && has834);
    }
  g_assert_cmpint (g_array_index (lg->micro_batches, int, 0), ==, 32);
  g_assert_cmpint (g_array_index (lg->micro_batches, int, 1), ==, 16);
  assert_rel (lg->measured_per_mb_s, (l1->measured_step_s - l2->measured_step_s) / 16, 1e-9);
  assert_rel (lg->predicted_fixed_s, 2 * l2->predicted_step_s - l1->predicted_step_s, 1e-9);
  /* Rows 1 and 2 at validate's V (8: the meta-llama3 stack's one-slot chunks) within 3
   * MFU points of 43 and 41 (45.3 and 39.4 with this stack; at the old V = 2 on the
   * megatron-core stack row 2 read 35.6, a per-micro-batch time 21% short and a fill and
   * drain 2.3x long cancelling, issue 13). Row 3 (128K, all-gather CP) reads 34.8 against
   * 38 with the stack's unstated attention kernel taken as PyTorch's FlashAttention-2
   * (48.6 at V = 8 with the cuDNN rate): not held to 3 points here, only to the side of
   * the published figure it is on (below: attention at FA2's rate is the slower bound). */
  for (guint i = 0; i < r->cases->len; i++)
    {
      const ResPublishedCase *c = r->cases->pdata[i];
      if (!c->predicted || c->row_id > 3)
        continue;
      g_assert_cmpint (c->plan.vpp, ==, 8);
      double d = c->predicted_mfu_pct[MODEL_FLOPS_PALM] - c->published_mfu_pct;
      if (c->row_id <= 2)
        g_assert_cmpfloat (fabs (d), <=, 3.0);
      else
        g_assert_cmpfloat (d, <, 0.0);
    }
  /* The planner view at the paper's V = 8 (Sec. 3.3.2: one layer fewer on the first and
   * last stage, a first chunk with only the embedding: 126 + 2 slots over 16 x 8 chunks,
   * Megatron-Core's --account-for-embedding/loss-in-pipeline-split, which validate's
   * mapping sets): every row builds; rows 1 and 2 (8,192 and 16,384 GPUs, 32 and 16
   * micro-batches) fit in 80 GB and come within 3 MFU points of the published 43 and 41
   * (44.8 and 39.4 predicted on the meta-llama3 stack; row 2 40.9 on megatron-core, 51.3
   * there before the ZeRO-2 reduce-scatter per micro-batch). Row 1 holds 141 one-layer
   * chunks in flight on stage 1: 82.9 GiB with each chunk's received input stored, 78.3
   * GiB with it freed as the paper says (the stack's pp_stage_input). Row 3 reads 36.3
   * against 38, not asserted against the paper here. */
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr (ResPublishedCase) c = res_published_case_new (csv, i);
      g_assert_true (c->ready);
      g_assert_true (c->plan.account_embedding && c->plan.account_loss);
      c->plan.vpp = 8;
      g_assert_true (res_published_case_predict (c));
      g_assert_true (isfinite (c->predicted_step_s));
      if (c->row_id <= 2)
        {
          g_assert_true (c->fits);
          g_assert_cmpfloat (fabs (c->predicted_mfu_pct[MODEL_FLOPS_PALM]
                                   - (c->row_id == 1 ? 43.0 : 41.0)), <=, 3.0);
        }
      g_test_message ("row %" G_GINT64_FORMAT " at V = 8: %.3f s, MFU %.1f%%, %s",
                      c->row_id, c->predicted_step_s, c->predicted_mfu_pct[MODEL_FLOPS_PALM],
                      c->fits ? "fits" : "over 80 GB");
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/results/published/map-nemotron-no-dropout",
                   test_map_nemotron_no_dropout);
  g_test_add_func ("/results/published/map-convention-from-stack", test_map_convention_from_stack);
  g_test_add_func ("/results/published/map-audit-forms", test_map_audit_forms);
  g_test_add_func ("/results/published/csv-quoting", test_csv_quoting);
  g_test_add_func ("/results/published/csv-inline", test_csv_inline);
  g_test_add_func ("/results/published/csv-bad-row-id", test_csv_bad_row_id);
  g_test_add_func ("/results/published/row-id-one-reading", test_row_id_one_reading);
  g_test_add_func ("/results/published/csv-short-rows", test_csv_short_rows);
  g_test_add_func ("/results/published/mb-scaling", test_mb_scaling);
  g_test_add_func ("/results/published/v-sweep", test_v_sweep);
  g_test_add_func ("/results/published/map-attention", test_map_attention);
  g_test_add_func ("/results/published/csv-errors", test_csv_errors);
  g_test_add_func ("/results/published/map-llama", test_map_llama);
  g_test_add_func ("/results/published/map-gpt-megatron96", test_map_gpt_megatron96);
  g_test_add_func ("/results/published/map-mfu-megatron72", test_map_mfu_megatron72);
  g_test_add_func ("/results/published/map-tokens-qualifier", test_map_tokens_qualifier);
  g_test_add_func ("/results/published/map-h100-fp8-vpp", test_map_h100_fp8_vpp);
  g_test_add_func ("/results/published/map-derived-dp", test_map_derived_dp);
  g_test_add_func ("/results/published/map-skips", test_map_skips);
  g_test_add_func ("/results/published/map-too-many-gpus", test_map_too_many_gpus);
  g_test_add_func ("/results/published/map-rope-unfused", test_map_rope_unfused);
  g_test_add_func ("/results/published/summary", test_summary);
  g_test_add_func ("/results/published/summary-held-out", test_summary_held_out);
  g_test_add_func ("/results/published/validate-small", test_validate_small);
  g_test_add_func ("/results/published/map-torchtitan-layer-ac", test_map_torchtitan_layer_ac);
  g_test_add_func ("/results/published/published-runs", test_published_runs);
  g_test_add_func ("/results/published/offered", test_published_offered);
  return g_test_run ();
}
