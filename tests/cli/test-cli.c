/* tests/cli/test-cli.c - the `tandem` program end to end: JSON contracts, readable
 * tables, and bad input answered with exit status 2 and one clear line.
 * TANDEM_EXE (set by tests/cli/meson.build) is the binary under test. */
#include "cli-run.h"
#include "../trace-nest.h"

#include <glib.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

static JsonObject *
parse_object (const char *text, JsonParser *parser)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  JsonNode *root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  return json_node_get_object (root);
}

/* Llama 3.1 8B: 8,030,261,248 parameters; every FLOP convention present. */
static void
test_show_model_json (void)
{
  RunResult r = { 0 };
  run_tandem ("show model llama3-8b --json --seq-length 8192", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = parse_object (r.out, p);
  g_assert_cmpint (json_object_get_int_member (o, "params"), ==, 8030261248);
  JsonObject *f = json_object_get_object_member (o, "flops_per_token");
  const char *convs[] = { "megatron96", "megatron72", "mcore", "causal", "palm" };
  for (guint i = 0; i < G_N_ELEMENTS (convs); i++)
    g_assert_true (json_object_has_member (f, convs[i]));
  /* causal at s = 8192: 51.5 GFLOP/token (published-runs.md convention 4) */
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (f, "causal") / 1e9, 51.5, 0.05);
  run_result_clear (&r);

  run_tandem ("show model llama3-405b", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "405,853,388,800"));
  run_result_clear (&r);
}

/* h100-24k: 24,576 GPUs; 24,576 x 80 GiB = 2,111,062,325,329,920 bytes (1.875 PiB);
 * 24,576 x 132 x 128 = 415,236,096 FP32 cores; 24,576 x 132 x 4 = 12,976,128 tensor
 * cores; 24,576 x 989.4e12 = 2.4315e19 FLOP/s BF16. */
static void
test_show_cluster_json (void)
{
  RunResult r = { 0 };
  run_tandem ("show cluster h100-24k --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = parse_object (r.out, p);
  g_assert_cmpint (json_object_get_int_member (o, "gpus"), ==, 24576);
  g_assert_cmpint (json_object_get_int_member (o, "hbm_bytes"), ==, 2111062325329920);
  g_assert_cmpint (json_object_get_int_member (o, "fp32_cores"), ==, 415236096);
  g_assert_cmpint (json_object_get_int_member (o, "tensor_cores"), ==, 12976128);
  JsonObject *peak = json_object_get_object_member (o, "peak_flops");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (peak, "bf16") / 2.4315e19,
                                  1.0, 1e-3);
  run_result_clear (&r);
  run_tandem ("show cluster h100-24k", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "24,576"));
  g_assert_nonnull (strstr (r.out, "1.88 PiB"));
  g_assert_nonnull (strstr (r.out, "132 SMs, 1 x 400 Gb/s NIC\n"));
  run_result_clear (&r);
  /* a device whose preset gives no SM count (H20: hgx-h20-cluster.json has no "sms") and
   * a host without a scale-out NIC: "not given", not "0 SMs" and "0 x 0 b/s NIC" */
  run_tandem ("show cluster hgx-h20-cluster", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "at 4 TB/s, SMs not given, 1 x 400 Gb/s NIC\n"));
  run_result_clear (&r);
  run_tandem ("show cluster cpu-host", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, ", 1 SM, no scale-out NIC given\n"));
  run_result_clear (&r);
}

/* `show models|clusters|frameworks` lists the presets of a kind, one a row: the plural a
 * user types first was "cannot show 'models' (did you mean 'model'?)". The rows are the
 * presets' own figures: Llama 3.1 8B 8,030,261,248 parameters, dense (README's show model);
 * DeepSeek-V3 671,026,419,200 of which 37,552,297,472 active; h100-24k 24,576 H100s. */
static void
test_show_presets (void)
{
  RunResult r = { 0 };
  run_tandem ("show models", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\nllama3-8b "));
  g_assert_nonnull (strstr (r.out, " 8,030,261,248               -\n"));
  g_assert_nonnull (strstr (r.out, " 671,026,419,200  37,552,297,472\n"));
  run_result_clear (&r);
  run_tandem ("show clusters --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) clusters = run_parse_json (r.out);
  JsonArray *a = json_node_get_array (clusters);
  gboolean seen = FALSE;
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonObject *o = json_array_get_object_element (a, i);
      if (g_str_equal (json_object_get_string_member (o, "name"), "h100-24k"))
        {
          seen = TRUE;
          g_assert_cmpint (json_object_get_int_member (o, "gpus"), ==, 24576);
          g_assert_cmpstr (json_object_get_string_member (o, "device"), ==, "H100-SXM5-80GB");
        }
    }
  g_assert_true (seen);
  run_result_clear (&r);
  run_tandem ("show frameworks", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\ntorchtitan "));
  run_result_clear (&r);
  run_tandem ("show models llama3-8b", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "show models lists the presets and takes no name (did you "
                            "mean 'model'?) (hint: tandem show model llama3-8b)"));
  run_result_clear (&r);
}

/* `show conventions` lists every convention with formula and source; `--help` ends with
 * the exit-status table of docs/contracts.md. */
static void
test_show_conventions_help (void)
{
  RunResult r = { 0 };
  run_tandem ("show conventions --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_data (p, r.out, -1, &error));
  JsonArray *a = json_node_get_array (json_parser_get_root (p));
  const char *convs[] = { "megatron96", "megatron72", "mcore", "causal", "palm" };
  g_assert_cmpint (json_array_get_length (a), ==, G_N_ELEMENTS (convs));
  for (guint i = 0; i < G_N_ELEMENTS (convs); i++)
    {
      JsonObject *c = json_array_get_object_element (a, i);
      g_assert_cmpstr (json_object_get_string_member (c, "name"), ==, convs[i]);
      g_assert_true (json_object_has_member (c, "formula"));
      g_assert_true (json_object_has_member (c, "source"));
    }
  run_result_clear (&r);
  run_tandem ("show conventions", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "PaLM (Chowdhery et al. 2022) Appendix B"));
  g_assert_nonnull (strstr (r.out, "6*N + 12*L*H*d_head*s"));
  run_result_clear (&r);
  run_tandem ("--help", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Exit status"));
  g_assert_nonnull (strstr (r.out, "  3  does not fit"));
  run_result_clear (&r);
  /* search takes --help-all as the commands with option groups do (it was refused as an
   * unknown option): the same text as its --help */
  run_tandem ("search --help", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autofree char *help = g_strdup (r.out);
  run_result_clear (&r);
  run_tandem ("search --help-all", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, help);
  run_result_clear (&r);
}

/* `show framework` prints the stack's MoE host-op counts with their source: megatron-core's
 * frameworks/presets/megatron-core.json "moe.host_ops" (outside the expert loops 58
 * forward eager ops, 17 of them after the dispatcher's sync, and 70 backward; per local
 * expert 2 forward and 4 backward GEMM calls and 4 backward eager ops; with FP8 2 quantize
 * calls per pass and 2 weight casts; TE module forward calls: 2 linear, 2 GroupedLinear);
 * torchtitan runs no Megatron MoE layer: all zero. */
static void
test_show_framework_host_ops (void)
{
  RunResult r = { 0 };
  run_tandem ("show framework megatron-core", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "moe.host_ops                 layer 58(17 after sync)/70,expert 2+0/4+4,fp8 2+2,te 2+2,"
                                   "graphed router 14+9 counted along one MoE layer's call path"));
  run_result_clear (&r);
  run_tandem ("show framework torchtitan", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "moe.host_ops                 layer 0(0 after sync)/0,expert 0+0/0+0,fp8 0+0,te 0+0,graphed router 0+0"));
  /* and its context parallelism as PyTorch's context_parallel runs it (torchtitan.json
   * "cp"), with the source of each */
  g_assert_nonnull (strstr (r.out, "cp.merge                     fp32_per_step "
                                   "torch/distributed/tensor/experimental/_attention.py"));
  g_assert_nonnull (strstr (r.out, "cp.kv_heads                  repeated   torchtitan"));
  /* and why its CP attention is the FA2 class (torchtitan.json "sources" "attention"): the
   * train context pins SDPA to the flash and memory-efficient backends under CP */
  g_assert_nonnull (strstr (r.out, "sdpa_kernel([SDPBackend.FLASH_ATTENTION, "
                                   "SDPBackend.EFFICIENT_ATTENTION]) around context_parallel"));
  run_result_clear (&r);
}

/* `show framework NAME` exits 0 and prints `line` */
static void
assert_show_framework_line (const char *name, const char *line)
{
  RunResult r = { 0 };
  g_autofree char *cmd = g_strdup_printf ("show framework %s", name);
  run_tandem (cmd, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, line));
  run_result_clear (&r);
}

/* `show framework` prints the FP8 recipes a stack offers beside its default: megatron-core
 * delayed by default, MXFP8, NVFP4 and blockwise offered, casts by operand (TE's
 * cast-transpose feeds the weight gradient; frameworks/presets/megatron-core.json "fp8"); torchtitan tensorwise (current) with torchao's rowwise; hai-llm runs DeepSeek-V3's
 * blockwise recipe by default, with the report's FP8 SwiGLU-input cache, E5M6 attention
 * output and FP8 dispatch (Sec. 3.3.3). */
static void
test_show_framework_fp8 (void)
{
  const struct { const char *name, *line; } cases[] = {
    { "megatron-core", "fp8                          gemm/delayed/cast1,compiled1,mxfp8,nvfp4,blockwise,per-operand,output-bf16 " },
    { "torchtitan", "fp8                          gemm/current/cast11.67,compiled1.33,mxfp8,rowwise,kernel-rate,per-operand,weight-cast6B,output-bf16 " },
    { "hai-llm", "fp8                          gemm/blockwise/cast1,compiled1,blockwise,output-bf16,"
                 "moe-act-input-fp8,attn-out-e5m6,moe-dispatch-fp8 " },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    assert_show_framework_line (cases[i].name, cases[i].line);
}

/* `show framework` prints the collectives the stack's NCCL may run as PAT (preset "nccl"
 * "pat", each with its source): megatron-core both, torchtitan's FSDP2 the all-gather
 * only (its reduce-scatter averages in NCCL), meta-llama3 none; --json the same list. */
static void
test_show_framework_nccl (void)
{
  const struct { const char *name, *line; } cases[] = {
    { "megatron-core", "nccl.pat                     all_gather, reduce_scatter NCCL 2.23.4" },
    { "torchtitan", "nccl.pat                     all_gather NCCL 2.23.4" },
    { "meta-llama3", "nccl.pat                     none       NCCL 2.23.4" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    assert_show_framework_line (cases[i].name, cases[i].line);
  RunResult r = { 0 };
  run_tandem ("show framework torchtitan --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\"nccl\" : {\n    \"pat\" : [\n      \"all_gather\"\n    ]\n  }"));
  run_result_clear (&r);
}

/* `show framework` prints the gradient-accumulation steps a stack documents for a run
 * that states neither them nor its global batch, with the source (torchtitan.json
 * "defaults.grad_accum": torchtitan/train.py, global_batch_size -1 = local batch x dp,
 * one step); megatron-core documents none and prints no such line. */
static void
test_show_framework_grad_accum (void)
{
  assert_show_framework_line ("torchtitan", "defaults.grad_accum          1          "
                                            "torchtitan/train.py Trainer.__init__");
  assert_show_framework_line ("deepspeed", "defaults.grad_accum          1          "
                                           "DeepSpeed Configuration JSON");
  RunResult r = { 0 };
  run_tandem ("show framework megatron-core", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, "defaults.grad_accum"));
  run_result_clear (&r);
}

/* A Nemotron-H config file (hybrid Mamba-2): predict (sharded, so that it fits: 8.1B
 * parameters under DDP's 16 bytes each do not) and search run on it; context parallelism
 * is refused, exit 2, naming what is not modelled. */
static void
test_nemotron_h (void)
{
  RunResult r = { 0 };
  run_tandem ("predict --model {DATA}/models/nemotron-h-8b.json --gpus 8 --gbs 8 "
              "--seq-length 8192 --sharding zero3 --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "prediction: nemotron-h-8b"));
  run_result_clear (&r);
  run_tandem ("search --model {DATA}/models/nemotron-h-8b.json --cluster h100-24k --gpus 8 "
              "--gbs 8 --seq-length 8192 --top 3 --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "nemotron-h-8b.json"));
  run_result_clear (&r);
  run_tandem ("predict --model {DATA}/models/nemotron-h-8b.json --gpus 8 --cp 2 --gbs 8 "
              "--seq-length 8192 --no-db", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "Mamba-2"));
  g_assert_nonnull (strstr (r.err, "hint: --cp 1"));
  run_result_clear (&r);
}

/* Megatron-Core's combined 1F1B with PP > 1 needs virtual pipeline stages (its arguments
 * check; moe_a2a_overlap.md): one line, exit 2, with the hint; with --vpp 2 it predicts. */
static void
test_a2a_overlap_needs_vpp (void)
{
  RunResult r = { 0 };
  run_tandem ("predict --model mixtral-8x7b --cluster h100-24k --gpus 64 --pp 4 --ep 8 "
              "--gbs 256 --seq-length 4096 --overlap-moe-expert-parallel-comm --no-db", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "tandem: error: --overlap-moe-expert-parallel-comm with "
                                   "--pp 4 needs virtual pipeline stages"));
  g_assert_nonnull (strstr (r.err, "hint: add --vpp 2"));
  run_result_clear (&r);
  run_tandem ("predict --model mixtral-8x7b --cluster h100-24k --gpus 64 --pp 4 --vpp 2 --ep 8 "
              "--gbs 256 --seq-length 4096 --sharding zero1 --moe-grouped-gemm "
              "--overlap-moe-expert-parallel-comm --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  /* Megatron-Core's other asserts on the overlap (TransformerConfig.__post_init__): each
   * was simulated with the overlap's saving (DeepSeek-V2 pp 4 V 3 ep 8: 8.82 -> 8.24 s)
   * and the search ranked such plans first; and the shared-expert overlap asserts the
   * alltoall (or flex) dispatcher on a model with shared experts */
  static const struct { const char *flags, *why; } bad[] = {
    { "--ep 1 --overlap-moe-expert-parallel-comm", "only supported with expert parallelism" },
    { "--ep 8 --overlap-moe-expert-parallel-comm --recompute-granularity full",
      "does not run with full recomputation" },
    { "--ep 8 --overlap-moe-expert-parallel-comm --moe-shared-expert-overlap",
      "does not run beside --moe-shared-expert-overlap" },
    { "--ep 8 --overlap-moe-expert-parallel-comm --moe-token-dispatcher-type allgather",
      "needs the alltoall or flex token dispatcher" },
    { "--ep 8 --moe-shared-expert-overlap --moe-token-dispatcher-type allgather",
      "--moe-shared-expert-overlap works with the alltoall or flex token dispatcher" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *args = g_strdup_printf (
        "predict --model deepseek-v2 --cluster h100-24k --gpus 64 --gbs 256 --seq-length 4096 "
        "--sharding zero1 --pp 4 --vpp 3 --schedule Interleaved1F1B --moe-grouped-gemm %s "
        "--no-db", bad[i].flags);
      run_tandem (args, &r);
      g_test_message ("%s -> %d: %s", bad[i].flags, r.status, r.err);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_nonnull (strstr (r.err, bad[i].why));
      g_assert_nonnull (strstr (r.err, "Megatron-Core asserts it"));
      run_result_clear (&r);
    }
}

#define LLAMA3_PLAN "--model llama3-405b --cluster h100-24k --tp 8 --pp 16 --gpus 16384 " \
  "--seq-length 8192 --gbs 2048 --sp --sharding zero2 " \
  "--decoder-first-pipeline-num-layers 7 --decoder-last-pipeline-num-layers 7"

/* With the Llama 3 order (tp-cp-ep-pp-dp) TP stays in a server and DP spans pods. */
static void
test_plan_show_json (void)
{
  RunResult r = { 0 };
  run_tandem ("plan show " LLAMA3_PLAN " --rank-order tp-cp-ep-pp-dp --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = parse_object (r.out, p);
  JsonObject *groups = json_object_get_object_member (json_object_get_object_member (o, "layout"),
                                                      "groups");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (groups, "tp"),
                                                  "span"), ==, "server");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (groups, "dp"),
                                                  "span"), ==, "cluster");
  JsonArray *stages = json_object_get_array_member (o, "stages");
  g_assert_cmpint (json_array_get_length (stages), ==, 16);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (stages, 0),
                                               "layers"), ==, 7);
  run_result_clear (&r);
}

/* Small throughputs keep their figures (a 2-layer model of hidden 2^20 on one GPU, 128
 * tokens in 315 s, 0.406 tokens/s, read "tokens/s 0"), and a step without communication
 * says so rather than "overlap 100.0 %" (one GPU, one sequence). */
static void
test_predict_text_small_figures (void)
{
  RunResult r = { 0 };
  run_tandem ("predict --num-layers 2 --hidden-size 1048576 --num-attention-heads 8192 "
              "--vocab-size 1000 --seq-length 128 --gpus 1 --no-db", &r);
  g_assert_cmpint (r.status, ==, 3);   /* 2^20-wide layers do not fit one GPU */
  const char *t = strstr (r.out, "  tokens/s ");
  g_assert_nonnull (t);
  g_autofree char *line = g_strndup (t, strcspn (t, "\n"));
  g_assert_nonnull (strstr (line, " 0.406"));
  g_assert_nonnull (strstr (r.out, "no communication in the step"));
  g_assert_null (strstr (r.out, "100.0  %  of communication"));
  run_result_clear (&r);
}

/* --ddp-bucket-size counts elements (Megatron's DDP bucket_size: 40M by default), whose
 * bytes are the gradient dtype's whichever flag comes first (audit of 6 Dec: 10M bf16
 * elements were 40 MB or 20 MB by the order of the two flags, and the default stayed
 * 160 MB under --grad-dtype bf16): 10M x 2 B = 20 MB either way; the default and an
 * explicit 40M are 40M x 2 = 80 MB with bf16 gradients, 40M x 4 = 160 MB in fp32. */
static void
test_ddp_bucket_elements (void)
{
  static const struct { const char *flags; gint64 elements; } cases[] = {
    { "--ddp-bucket-size 10000000 --grad-dtype bf16", 10000000 },
    { "--grad-dtype bf16 --ddp-bucket-size 10000000", 10000000 },
    { "--grad-dtype bf16", 40000000 },
    { "--grad-dtype bf16 --ddp-bucket-size 40000000", 40000000 },
    { "", 40000000 },
  };
  gint64 peak[G_N_ELEMENTS (cases)];
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RunResult r = { 0 };
      g_autofree char *args = g_strdup_printf ("predict --model llama3-8b --gpus 8 --sharding "
                                               "zero2 --overlap-grad-reduce --no-db --json %s",
                                               cases[i].flags);
      run_tandem (args, &r);
      g_assert_cmpint (r.status, ==, 0);
      g_autoptr (JsonParser) p = json_parser_new ();
      JsonObject *o = parse_object (r.out, p);
      /* the plan holds elements (its bytes follow the gradient dtype) */
      g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "plan"),
                                                   "ddp_bucket_size"), ==, cases[i].elements);
      peak[i] = json_object_get_int_member (json_object_get_object_member (o, "memory"),
                                            "peak_bytes");
      run_result_clear (&r);
    }
  g_assert_cmpint (peak[0], ==, peak[1]);
  g_assert_cmpint (peak[2], ==, peak[3]);
  /* 40M elements in fp32 (160 MB) and bf16 (80 MB): one overlapped bucket unsharded
   * beside ZeRO-2's sharded grads and one in flight, 2 x 80 MB apart, plus the reserve's
   * 5% of them */
  g_assert_cmpint (peak[4] - peak[2], >, 0);
  /* a plan saved as JSON and read back beside --grad-dtype bf16 keeps elements: the same
   * peak as the flags (it kept the fp32 file's 160 MB) */
  RunResult r = { 0 };
  run_tandem ("predict --model llama3-8b --gpus 8 --sharding zero2 --overlap-grad-reduce --no-db "
              "--json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) sp = json_parser_new ();
  JsonObject *so = parse_object (r.out, sp);
  g_autofree char *dir = g_dir_make_tmp ("tandem-bucket-XXXXXX", NULL);
  g_autofree char *file = g_build_filename (dir, "plan.json", NULL);
  {
    g_autoptr (JsonGenerator) gen = json_generator_new ();
    g_autoptr (JsonNode) pn = json_node_new (JSON_NODE_OBJECT);
    json_node_set_object (pn, json_object_get_object_member (so, "plan"));
    json_generator_set_root (gen, pn);
    g_assert_true (json_generator_to_file (gen, file, NULL));
  }
  run_result_clear (&r);
  g_autofree char *again = g_strdup_printf ("predict --model llama3-8b --plan %s --grad-dtype bf16 "
                                            "--no-db --json", file);
  run_tandem (again, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) ap = json_parser_new ();
  JsonObject *ao = parse_object (r.out, ap);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (ao, "memory"),
                                               "peak_bytes"), ==, peak[2]);
  run_result_clear (&r);
  g_unlink (file);
  g_rmdir (dir);
}

/* The text of predict: the MFU line names its convention only (the derivation is in
 * `show conventions`); HFU below a PaLM MFU says why. Llama 3 405B on the h100-24k plan
 * runs no recompute and causal (flash) attention, while palm counts 12 L H d s per token
 * of attention non-causal, twice what runs: HFU < palm MFU. */
static void
test_predict_text_mfu_hfu (void)
{
  RunResult r = { 0 };
  run_tandem ("predict " LLAMA3_PLAN " --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  const char *mfu = strstr (r.out, "  MFU ");
  g_assert_nonnull (mfu);
  g_assert_nonnull (strstr (mfu, "palm convention (tandem show conventions)"));
  /* the MFU line carries no citation any more: short */
  g_assert_cmpint (strchr (mfu, '\n') - mfu, <, 110);
  const char *hfu = strstr (r.out, "  HFU ");
  g_assert_nonnull (hfu);
  g_autofree char *line = g_strndup (hfu, strchr (hfu, '\n') - hfu);
  g_assert_nonnull (strstr (line, "below MFU: palm counts attention non-causal"));
  run_result_clear (&r);
}

/* The Llama 3 plan fits in 80 GiB with sequence parallelism; JSON has the contract's
 * keys. Without SP the 10 s b h term is not divided by t and it does not fit. */
static void
test_memory_json (void)
{
  RunResult r = { 0 };
  run_tandem ("memory " LLAMA3_PLAN " --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = parse_object (r.out, p);
  g_assert_true (json_object_has_member (o, "peak_bytes"));
  g_assert_true (json_object_get_boolean_member (o, "fits"));
  g_assert_true (json_object_has_member (json_object_get_object_member (o, "categories"),
                                         "activations"));
  g_assert_cmpint (json_array_get_length (json_object_get_array_member (o, "stages")), ==, 16);
  run_result_clear (&r);

  run_tandem ("memory --model llama3-405b --tp 8 --pp 16 --gpus 16384 --gbs 2048 "
              "--decoder-first-pipeline-num-layers 7 --decoder-last-pipeline-num-layers 7", &r);
  /* printed, then exit 3 (docs/contracts.md: does not fit) with one line saying so */
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.out, "OUT OF MEMORY"));
  g_assert_true (g_str_has_prefix (r.err, "tandem: error: does not fit"));
  run_result_clear (&r);
}

static gint64
category (JsonObject *o, const char *name)
{
  return json_object_get_int_member (json_object_get_object_member (o, "categories"), name);
}

/* act_bytes_per_layer of `memory ... --json` (plan) minus that of the same command with
 * `more` appended; both must exit 0. */
static gint64
act_bytes_difference (const char *plan, const char *more)
{
  RunResult a = { 0 }, b = { 0 };
  run_tandem (plan, &a);
  g_autofree char *with = g_strdup_printf ("%s %s", plan, more);
  run_tandem (with, &b);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_cmpint (b.status, ==, 0);
  g_autoptr (JsonParser) pa = json_parser_new ();
  g_autoptr (JsonParser) pb = json_parser_new ();
  JsonObject *oa = parse_object (a.out, pa), *ob = parse_object (b.out, pb);
  gint64 d = json_object_get_int_member (oa, "act_bytes_per_layer")
             - json_object_get_int_member (ob, "act_bytes_per_layer");
  run_result_clear (&a);
  run_result_clear (&b);
  return d;
}

/* The llm-foundry stack drops no activations (its MPT code sets every pdrop to 0): with
 * --framework llm-foundry, `tandem memory` (as predict and search, which apply the stack
 * the same way) stores no dropout masks for a GeLU GPT model that carries dropout:
 * GPT-NeoX-20B at seq 2048, micro-batch 1, tp 1: two masks of 1 B per element of the
 * s x b x h = 2048 x 6144 activation, 2 x 2048 x 6144 = 25,165,824 B a layer less. */
static void
test_memory_stack_dropout (void)
{
  const char *plan = "memory --model gpt-neox-20b --gpus 8 --gbs 8 --sharding zero3 "
                     "--seq-length 2048 --json";
  g_assert_cmpint (act_bytes_difference (plan, "--framework llm-foundry"), ==, 25165824);
  /* a dense model has no MoE layer: null, not 0 */
  RunResult a = { 0 };
  run_tandem (plan, &a);
  g_autoptr (JsonParser) pa = json_parser_new ();
  JsonObject *oa = parse_object (a.out, pa);
  g_assert_true (json_object_has_member (oa, "act_bytes_per_moe_layer"));
  g_assert_true (json_object_get_null_member (oa, "act_bytes_per_moe_layer"));
  run_result_clear (&a);
}

/* Row 706 of data/published-runs.csv (DeepSeek-V3 on 256 GB200, pp 4 x vpp 4, ep 64,
 * 4,096-token sequences, the recipe's --recompute-modules mla_up_proj), every category of
 * the peak stage derived by hand. T = 4096 tokens, a = 2 bytes, h 7168, 128 heads of
 * d_qk 192 / d_v 128, q / kv LoRA ranks 1536 / 512, rope 64, dense ffn 18432, tp = cp = 1.
 *
 * One dense layer's activations (plan/memory.c), no recompute:
 *   norm inputs  2aTh + aT(1536 + 512 + 64)          = 117,440,512 + 17,301,504
 *   GEMM inputs  2aTh + aT 128 x 128 + aT(1536 + 512) = 117,440,512 + 134,217,728 + 16,777,216
 *   Q, K, V      aT 128 (2 x 192 + 128)              = 536,870,912
 *   softmax lse  4 x 128 x 4096                      = 2,097,152
 *   SwiGLU       3aT 18432                           = 452,984,832
 *   total 1,395,130,368; mla_up_proj drops Q, K, V and the up-GEMM inputs: 841,482,240;
 *   layernorm as well drops MLA's input-norm output aTh = 58,720,256: 782,761,984.
 * An MoE layer (forced balance, 4 local experts, X = T k = 32,768 copies) replaces the
 * SwiGLU (and keeps the router input aTh) by aXh + 2aX 2048 + aX 2048 + 4 T 8 (probs)
 * + 3aT 2048 (shared hidden) = 469,762,048 + 268,435,456 + 134,217,728 + 131,072
 * + 50,331,648 = 922,877,952: 841,482,240 - 452,984,832 + 922,877,952 = 1,311,375,360.
 * Stage 0 holds chunks of 4 layers: chunk 0 3 dense + 1 MoE = 3 x 841,482,240 +
 * 1,311,375,360 = 3,835,822,080 with the token ids 8T = 32,768: 3,835,854,848; chunks 1-3
 * 4 MoE = 5,245,501,440. m = 4096 / 64 = 64 micro-batches in groups of N = pp = 4;
 * warm-up 2 x 3 + 3 x 4 = 18 chunk-forwards (chunks 0, 1, 2, 3 of micro-batches 0-3, then
 * chunk 0 of 4 and 5), and the first steady forward (chunk 0 of 6): 19 in flight, 7 of
 * chunk 0 and 4 of each other: 7 x 3,835,854,848 + 12 x 5,245,501,440 = 26,850,983,936 +
 * 62,946,017,280 = 89,797,001,216. After each later forward 19 units are in flight again,
 * of which chunk 0's are 7 or 8 (its backwards of a group of 4, 12-15 of each 16, start
 * one pair before its forwards of the next group), never fewer; the lighter chunk 0 holds
 * the least at 7. (Before, each unit was counted as 1/4 of a micro-batch of the stage:
 * 4.75 x 19,572,326,400 + 5 x 32,768 = 92,968,714,240.)
 * Parameters on stage 0: embedding 129280 x 7168 = 926,679,040; a dense layer's MLA
 * 187,107,328 (q_down 11,010,048, q_norm 1,536, q_up 37,748,736, kv_down 4,128,768,
 * kv_norm 512, kv_up 16,777,216, out 117,440,512) + norms 14,336 + MLP 396,361,728 =
 * 583,483,392; an MoE layer's dense part 187,107,328 + 14,336 + router 1,835,008 + its
 * bias 256 + shared 44,040,192 = 232,997,120 and 4 experts x 44,040,192 = 176,160,768.
 * Dense-sharded 926,679,040 + 3 x 583,483,392 + 13 x 232,997,120 = 5,706,091,776;
 * experts 13 x 176,160,768 = 2,290,089,984. bf16 params and grads: 2 x 7,996,181,760 =
 * 15,992,363,520 each. Adam (12 B) sharded over dp 64, the experts over edp = 64 / 64 = 1:
 * 12 x 5,706,091,776 / 64 + 12 x 2,290,089,984 = 1,069,892,208 + 27,481,079,808 =
 * 28,550,972,016. PP send/recv 2aTh = 117,440,512. Counted 150,450,140,784; reserve
 * 5% (7,522,507,039) + 1.5 GiB (1,610,612,736) = 9,133,119,775; peak 159,583,260,559 of
 * the GB200's 186 GB: fits. Without mla_up_proj (a dense layer 1,395,130,368, an MoE
 * layer 1,865,023,488) the stage holds 7 x 6,050,447,360 + 12 x 7,460,093,952 =
 * 131,874,258,944 of activations and the plan does not fit (exit 3). */
static void
test_memory_moe_recompute_modules (void)
{
  const char *plan = "memory --model deepseek-v3 --cluster gb200-nvl72-superpod --gpus 256 "
                     "--pp 4 --vpp 4 --ep 64 --gbs 4096 --seq 4096 --moe-imbalance 1 "
                     "--first-chunk-layers 4 --last-chunk-layers 1 "
                     "--use-distributed-optimizer --grad-dtype bf16 --json";
  static const struct { const char *modules; gint64 layer, activations; int status; } cases[] = {
    { "", 1395130368, 131874258944, 3 },
    { "--recompute-modules mla_up_proj", 841482240, 89797001216, 0 },
    { "--recompute-modules mla_up_proj,layernorm", 782761984, -1, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RunResult r = { 0 };
      g_autofree char *args = g_strdup_printf ("%s %s", plan, cases[i].modules);
      run_tandem (args, &r);
      g_assert_cmpint (r.status, ==, cases[i].status);
      g_autoptr (JsonParser) p = json_parser_new ();
      JsonObject *o = parse_object (r.out, p);
      g_assert_cmpint (json_object_get_int_member (o, "act_bytes_per_layer"), ==,
                       cases[i].layer);
      /* the MoE layer's own figure beside the dense one (derived above: 1,865,023,488
       * without mla_up_proj), which the text line names too */
      if (i == 0)
        {
          g_assert_cmpint (json_object_get_int_member (o, "act_bytes_per_moe_layer"), ==,
                           1865023488);
          RunResult t = { 0 };
          g_autofree char *text = g_strdup_printf ("%s %s", plan, cases[i].modules);
          *strstr (text, " --json") = '\0';
          run_tandem (text, &t);
          g_assert_nonnull (strstr (t.out, "activations per layer per micro-batch: 1.30 GiB a "
                                           "dense layer, 1.74 GiB an MoE layer;"));
          run_result_clear (&t);
        }
      g_assert_cmpint (json_object_get_int_member (o, "peak_stage"), ==, 0);
      if (cases[i].activations >= 0)
        g_assert_cmpint (category (o, "activations"), ==, cases[i].activations);
      if (i == 1)
        {
          g_assert_cmpint (category (o, "params"), ==, 15992363520);
          g_assert_cmpint (category (o, "grads"), ==, 15992363520);
          g_assert_cmpint (category (o, "optimizer"), ==, 28550972016);
          g_assert_cmpint (category (o, "comm_buffers"), ==, 117440512);
          g_assert_cmpint (category (o, "reserve"), ==, 9133119775);
          g_assert_cmpint (json_object_get_int_member (o, "peak_bytes"), ==, 159583260559);
          g_assert_true (json_object_get_boolean_member (o, "fits"));
        }
      run_result_clear (&r);
    }
  /* plan show names the modules (Megatron-Core's order of the table in plan.c) */
  RunResult r = { 0 };
  run_tandem ("plan show --model deepseek-v3 --cluster gb200-nvl72-superpod --gpus 256 --pp 4 "
              "--vpp 4 --ep 64 --gbs 4096 --seq 4096 --first-chunk-layers 4 "
              "--last-chunk-layers 1 --recompute-modules mla_up_proj,layernorm",
              &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "recompute none (modules layernorm,mla_up_proj)"));
  g_assert_nonnull (strstr (r.out, "-rcln-rcmla-"));
  run_result_clear (&r);
}

/* Row 712 (gpt-oss-120b on 64 B200, ep 8, 4 x 4,096 tokens a micro-batch, the recipe's
 * --recompute-modules layernorm,moe_act). T = 16,384, a = 2, h 2880, 64 query heads and
 * 8 KV heads of 64, experts of 2880, top-4. A dense layer: norm inputs 2aTh 188,743,680,
 * GEMM inputs 2aTh + aT 4096 = 322,961,408, Q K V aT(4096 + 1024) = 167,772,160, lse
 * 4 x 4 x 64 x 4096 = 4,194,304, SwiGLU 3aT 2880 = 283,115,520: 966,787,072 (its input
 * norm is fused into the QKV GEMM: layernorm changes nothing there). Every layer is MoE:
 * the SwiGLU and the router input aTh = 94,371,840 (the pre-MLP norm's output, recomputed)
 * go; X = 65,536 copies store aXh 377,487,360 + 2aX 2880 754,974,720 (moe_act drops the
 * fc2 input) + probs 262,144: 1,722,023,936 a layer. 36 layers, one micro-batch in flight
 * (pp 1): 61,992,861,696, plus token ids 8T 131,072 and the head's 2aTh 188,743,680 +
 * 4 T 201,088 (fp32 softmax) 13,178,503,168: 75,360,239,616. Without the two modules a
 * layer keeps the router input and the fc2 input aX 2880 = 377,487,360 more,
 * 2,193,883,136, and the stage 92,347,170,816 (the row's "OOM predicted" before), a peak
 * of 190,729,965,039 B: under the B200's 183,359 MiB (192,265,846,784 B, the nvidia-smi
 * total) by 1.5 GB, so the plan fits even without them (it did not against 180e9 B). */
static void
test_memory_gpt_oss_recompute_modules (void)
{
  RunResult r = { 0 };
  run_tandem ("memory --model gpt-oss-120b --cluster dgx-b200-superpod --gpus 64 --ep 8 "
              "--mbs 4 --gbs 512 --seq 4096 --moe-imbalance 1 --use-distributed-optimizer "
              "--grad-dtype bf16 --recompute-modules layernorm,moe_act --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = parse_object (r.out, p);
  g_assert_cmpint (json_object_get_int_member (o, "act_bytes_per_layer"), ==, 966787072);
  g_assert_cmpint (category (o, "activations"), ==, 75360239616);
  g_assert_cmpint (category (o, "grads"), ==, category (o, "params"));   /* bf16 both */
  g_assert_true (json_object_get_boolean_member (o, "fits"));
  run_result_clear (&r);
  run_tandem ("memory --model gpt-oss-120b --cluster dgx-b200-superpod --gpus 64 --ep 8 "
              "--mbs 4 --gbs 512 --seq 4096 --moe-imbalance 1 --use-distributed-optimizer "
              "--grad-dtype bf16 --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) q = json_parser_new ();
  JsonObject *o2 = parse_object (r.out, q);
  g_assert_cmpint (category (o2, "activations"), ==, 92347170816);
  g_assert_cmpint (json_object_get_int_member (o2, "peak_bytes"), ==, 190729965039);
  g_assert_cmpint (json_object_get_int_member (o2, "capacity_bytes"), ==, 192265846784);
  run_result_clear (&r);
}

typedef struct {
  const char *args;
  const char *expect;     /* substring of stderr */
} BadCall;

/* Bad input: exit status 2 and one line "tandem: error: ..." that says what is wrong. */
static void
test_errors (void)
{
  static const BadCall cases[] = {
    { "frobnicate", "unknown command" },
    { "show model no-such-model", "no-such-model" },
    { "show model {DATA}/models/malformed.json", "malformed.json" },
    { "show model {DATA}/models/llama3-bad.json", "num_hidden_layers" },
    { "show model {DATA}/models/jamba.json", "jamba" },
    { "show model {DATA}/models/mixtral-topk-exceeds.json", "num_experts_per_tok" },
    { "show model {DATA}/models/deepseek-v3.json", "qk_nope_head_dim" },
    { "show cluster no-such-cluster", "no-such-cluster" },
    { "show cluster {DATA}/topology/malformed.json", "malformed.json" },
    { "show cluster {DATA}/topology/missing-device.json", "device" },
    { "show widget x", "cannot show" },
    /* tp x pp = 128: below it only 128 fits (was "128 or 128"); 200 lies between 128
     * and 256 */
    { "memory --tp 8 --pp 16 --gpus 100", "not a multiple of tp x pp x cp = 8 x 16 x 1 = 128 "
      "(hint: use --gpus 128)" },
    { "memory --tp 8 --pp 16 --gpus 200", "(hint: use --gpus 128 or 256)" },
    { "memory --tp 3", "attention heads" },
    /* a per-tensor recipe the stack does not run: torchao dropped delayed scaling
     * (torchtitan read 6.6% faster with it than with its own tensorwise) */
    { "predict --model llama3-8b --gpus 64 --gbs 256 --framework torchtitan --tp 2 "
      "--sharding zero3 --sp --fp8-format hybrid --fp8-recipe delayed --no-db",
      "--fp8-recipe delayed: the torchtitan stack has no delayed scaling (hint: "
      "--fp8-recipe tensorwise, its own, or --framework megatron-core / nemo)" },
    /* MXFP8 needs block-scaled GEMMs: CDNA3 has none (CDNA4's MI355X has, below) */
    { "predict --model llama3-8b --cluster mi300x-cluster --gpus 8 --precision fp8 "
      "--fp8-recipe mxfp8 --no-db",
      "MI300X-192GB has no MXFP8 block-scaled GEMMs (hint: --fp8-recipe tensorwise; "
      "MXFP8 needs Blackwell or CDNA4: a b200, gb200, gb300, mi350x or mi355x cluster)" },
    /* the hint divides the KV heads too: qwen2-7b's 28 heads and 4 KV heads take --tp 4
     * (--tp 7 was hinted, which the KV heads then refused) */
    { "memory --model qwen2-7b --gpus 8 --tp 8",
      "tp = 8 does not divide the 28 attention heads of qwen2-7b (hint: --tp 4)" },
    { "memory --tp 8 --gpus 99999", "has only" },
    { "memory --bogus-flag", "bogus-flag" },
    { "memory --recompute-modules layernorm,attn_norm",
      "'attn_norm' is not a Megatron-Core recompute module (hint: core_attn, moe_act, "
      "layernorm, mla_up_proj, mlp, moe, shared_experts)" },
    { "memory --tp zero", "--tp" },
    { "memory --plan {DATA}/plan/bad-malformed.json", "malformed JSON" },
    { "memory --plan {DATA}/plan/bad-unknown-key.json", "tensor_paralel_degree" },
    { "memory --plan /nonexistent/plan.json", "plan.json" },
    { "plan frob", "unknown plan subcommand" },
    /* DeepSpeed's own CP exchange (Ulysses) is checked against the heads as a given
     * --cp-comm-type a2a is: tiny-llama's 8 heads at tp 4 leave 2 a rank, which Ulysses
     * of degree 4 cannot split (it ran, at 137% MFU) */
    { "predict --model tiny-llama --cluster dgx-h100-superpod --gpus 64 --tp 4 --cp 4 "
      "--gbs 128 --seq-length 4096 --framework deepspeed --no-db",
      "the deepspeed stack's context parallelism is Ulysses (all-to-all), its only exchange: "
      "Ulysses (a2a) context parallelism of degree 4 needs it to divide the 2 heads per TP "
      "rank (hint: --cp 2)" },
    /* the same refusal for a typed --cp-comm-type a2a: it hinted "--cp-comm-type p2p",
     * which the stack refuses, and Megatron-Core's KV-head rule; tp 4 cp 4 on 8 heads,
     * 2 a TP rank: the largest degree that divides them is 2 */
    { "predict --model tiny-llama --cluster dgx-h100-superpod --gpus 64 --tp 4 --cp 4 "
      "--cp-comm-type a2a --gbs 128 --seq-length 4096 --framework deepspeed --no-db",
      "Ulysses (a2a) context parallelism of degree 4 needs it to divide the 2 heads per TP "
      "rank (hint: --cp 2)\n" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RunResult r = { 0 };
      run_tandem (cases[i].args, &r);
      if (r.status != 2 || strstr (r.err, cases[i].expect) == NULL
          || !g_str_has_prefix (r.err, "tandem: error: "))
        g_error ("tandem %s: status %d, stderr '%s' (expected 2 and '%s')", cases[i].args,
                 r.status, r.err, cases[i].expect);
      /* one line */
      g_assert_cmpint (strchr (r.err, '\n') - r.err, ==, (long) strlen (r.err) - 1);
      run_result_clear (&r);
    }
}

/* A hint that gives a command gives one that runs: `tandem plan`'s (the layers of the
 * default Llama 3 405B did not divide into its 16 stages: exit 2) and `predict --model
 * M`'s example plan (for the 405B "--gpus 256 --tp 8" needed 214 GiB a GPU: exit 3), run
 * as the hint writes them, for models from 8B to 671B */
static void
test_hints_run (void)
{
  RunResult r = { 0 };
  run_tandem ("plan", &r);
  g_assert_cmpint (r.status, ==, 2);
  const char *h = strstr (r.err, "(hint: tandem ");
  g_assert_nonnull (h);
  g_autofree char *plan = g_strndup (h + strlen ("(hint: tandem "),
                                     strlen (h + strlen ("(hint: tandem ")) - 2);
  run_result_clear (&r);
  run_tandem (plan, &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  static const char *const models[] = { "llama3-8b", "llama3-70b", "llama3-405b",
                                        "mixtral-8x7b", "deepseek-v3" };
  for (guint i = 0; i < G_N_ELEMENTS (models); i++)
    {
      g_autofree char *args = g_strdup_printf ("predict --model %s", models[i]);
      run_tandem (args, &r);
      g_assert_cmpint (r.status, ==, 2);
      const char *e = strstr (r.err, "; or give one, e.g. ");
      g_assert_nonnull (e);
      e += strlen ("; or give one, e.g. ");
      g_autofree char *flags = g_strndup (e, strlen (e) - 2);
      run_result_clear (&r);
      g_autofree char *again = g_strdup_printf ("predict --model %s %s --no-db", models[i],
                                                flags);
      run_tandem (again, &r);
      if (r.status != 0)
        g_error ("tandem %s: status %d, stderr '%s'", again, r.status, r.err);
      g_assert_nonnull (strstr (r.out, ": fits\n"));
      run_result_clear (&r);
    }
}

/* CDNA4 runs MXFP8: gfx950's block-scaled MFMA (v_mfma_scale_f32_*_f8f6f4), the MI355X
 * preset's "mxfp8" (it was refused as Blackwell-only) */
static void
test_mxfp8_mi355x (void)
{
  RunResult r = { 0 };
  run_tandem ("predict --model llama3-8b --cluster mi355x-cluster --gpus 8 --precision fp8 "
              "--fp8-recipe mxfp8 --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "mxfp8"));
  run_result_clear (&r);
}

/* Hints name the real command: a bad value to a plan flag under `predict` points to
 * `tandem predict --help` (was "tandem  --help"), under `plan show` to
 * `tandem plan show --help` (was "tandem show --help", another command). */
static void
test_hint_names_command (void)
{
  static const struct { const char *args, *hint; } cases[] = {
    { "predict --tp zero", "(hint: tandem predict --help)" },
    { "memory --tp zero", "(hint: tandem memory --help)" },
    { "plan show --tp zero", "(hint: tandem plan show --help)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RunResult r = { 0 };
      run_tandem (cases[i].args, &r);
      if (r.status != 2 || strstr (r.err, cases[i].hint) == NULL)
        g_error ("tandem %s: status %d, stderr '%s' (expected 2 and '%s')", cases[i].args,
                 r.status, r.err, cases[i].hint);
      run_result_clear (&r);
    }
}

/* Did-you-mean: a slip of one or two edits names the nearest command or option, on one
 * line, exit 2; something far from every name gets the --help hint instead.
 * predcit -> predict: one swap of neighbours; --tensor-model-paralel-size ->
 * --tensor-model-parallel-size: one insertion; --recompute-granularty: one insertion. */
/* Preset names match regardless of case, as published-run matching reads names: model
 * Llama3.1-8B (an alias of llama3-8b), cluster H100-24K and stack TorchTitan give the
 * lower-case presets' prediction to the bit and report the presets' own names. */
static void
test_preset_names_any_case (void)
{
  const char *tail = "--gpus 8 --gbs 8 --seq-length 2048 --sharding zero3 --json --no-db";
  RunResult lo = { 0 }, up = { 0 };
  g_autofree char *a = g_strdup_printf ("predict --model llama3-8b --cluster h100-24k "
                                        "--framework torchtitan %s", tail);
  g_autofree char *b = g_strdup_printf ("predict --model Llama3.1-8B --cluster H100-24K "
                                        "--framework TorchTitan %s", tail);
  run_tandem (a, &lo);
  run_tandem (b, &up);
  g_assert_cmpint (lo.status, ==, 0);
  g_assert_cmpint (up.status, ==, 0);
  g_autoptr (JsonParser) pl = json_parser_new ();
  g_autoptr (JsonParser) pu = json_parser_new ();
  JsonObject *ol = parse_object (lo.out, pl), *ou = parse_object (up.out, pu);
  g_assert_cmpfloat (json_object_get_double_member (ou, "step_time_s"), ==,
                     json_object_get_double_member (ol, "step_time_s"));
  g_assert_cmpstr (json_object_get_string_member (ou, "model"), ==, "llama3-8b");
  g_assert_cmpstr (json_object_get_string_member (ou, "cluster"), ==, "h100-24k");
  g_assert_cmpstr (json_object_get_string_member (ou, "framework"), ==, "torchtitan");
  run_result_clear (&lo);
  run_result_clear (&up);
}

static void
test_did_you_mean (void)
{
  static const struct { const char *args, *line; } cases[] = {
    { "predcit", "tandem: error: unknown command 'predcit' (did you mean 'predict'?)\n" },
    { "serach --gbs 8", "tandem: error: unknown command 'serach' (did you mean 'search'?)\n" },
    { "frobnicate", "tandem: error: unknown command 'frobnicate' (hint: tandem --help)\n" },
    { "predict --model llama3-8b --tensor-model-paralel-size 2",
      "tandem: error: unknown option '--tensor-model-paralel-size' "
      "(did you mean '--tensor-model-parallel-size'?)\n" },
    { "memory --recompute-granularty=full",
      "tandem: error: unknown option '--recompute-granularty' "
      "(did you mean '--recompute-granularity'?)\n" },
    { "plan show --zzzzzzzzzz", "tandem: error: unknown option '--zzzzzzzzzz' "
      "(hint: tandem plan show --help)\n" },
    { "show model llama3-8b --jsno", "tandem: error: unknown option '--jsno' "
      "(did you mean '--json'?)\n" },
    { "runs --zzzzzzzzzz", "tandem: error: unknown option '--zzzzzzzzzz' "
      "(hint: tandem runs --help)\n" },
    /* a preset's name given to show, predict's --framework or validate's --cluster:
     * the nearest preset, not the whole list (llama3-8c -> llama3-8b: one substitution;
     * h100-24 -> h100-24k: one insertion; torchtitn -> torchtitan: one insertion) */
    { "show model llama3-8c",
      "tandem: error: unknown model 'llama3-8c' (did you mean 'llama3-8b'?)\n" },
    { "show cluster h100-24",
      "tandem: error: unknown cluster 'h100-24' (did you mean 'h100-24k'?)\n" },
    { "show framework torchtitn",
      "tandem: error: unknown framework 'torchtitn' (did you mean 'torchtitan'?)\n" },
    { "predict --model llama3-8b --gpus 8 --framework torchtitn --no-db",
      "tandem: error: --framework: unknown framework 'torchtitn' (did you mean "
      "'torchtitan'?)\n" },
    { "validate {SRC}/data/published-runs.csv --cluster h100-24 --no-db",
      "tandem: error: --cluster: unknown cluster 'h100-24' (did you mean 'h100-24k'?)\n" },
    /* show with a kind but no name: the presets of that kind (the eleven stacks of
     * data/frameworks, in the order fw_stack_preset_names sorts them) */
    { "show framework",
      "tandem: error: show framework needs a name or a file (hint: one of deepspeed, "
      "hai-llm, llm-foundry, maxtext, megatron-core, megatron-lm-2021, meta-llama3, nemo, "
      "nemo-automodel, pytorch-fsdp, torchtitan)\n" },
    /* a negative run id reads as an option to GLib: say what it is */
    { "report run -1", "tandem: error: '-1' is a negative number: ids and counts here are "
      "positive (hint: tandem report run --help)\n" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RunResult r = { 0 };
      run_tandem (cases[i].args, &r);
      if (r.status != 2 || g_strcmp0 (r.err, cases[i].line) != 0)
        g_error ("tandem %s: status %d, stderr '%s' (expected 2 and '%s')", cases[i].args,
                 r.status, r.err, cases[i].line);
      run_result_clear (&r);
    }
}

/* Megatron-LM's --recompute-activations is its older spelling of
 * --recompute-granularity selective. */
static void
test_recompute_activations (void)
{
  RunResult r = { 0 };
  run_tandem ("plan show --model llama3-8b --gpus 8 --tp 8 --recompute-activations --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = parse_object (r.out, p);
  JsonObject *ac = json_object_get_object_member (json_object_get_object_member (o, "plan"),
                                                  "activation_checkpoint");
  g_assert_cmpstr (json_object_get_string_member (ac, "mode"), ==, "selective");
  run_result_clear (&r);
}

/* plan show takes --framework as predict and memory do (it refused the option): the
 * stack is named in the JSON and the text, and what the stack refuses is refused here
 * too (torchtitan has no ZeRO-1). */
static void
test_plan_show_framework (void)
{
  RunResult r = { 0 };
  run_tandem ("plan show --model llama3-8b --gpus 64 --tp 4 --pp 2 --framework torchtitan --json",
              &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = parse_object (r.out, p);
  g_assert_cmpstr (json_object_get_string_member (o, "framework"), ==, "torchtitan");
  run_result_clear (&r);
  run_tandem ("plan show --model llama3-8b --gpus 64 --tp 4 --pp 2", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\n  framework megatron-core\n"));
  run_result_clear (&r);
  run_assert_error ("plan show --model llama3-8b --gpus 64 --tp 4 --sharding zero1 "
                    "--framework torchtitan", 2,
                    "--sharding zero1: the torchtitan stack does not offer it");
  /* a schedule nobody chose follows the stack: MaxText's pipeline is GPipe alone (--pp 2
   * under it was refused for a "--schedule 1F1B" never given) */
  run_tandem ("plan show --model llama3-8b --gpus 64 --tp 4 --pp 2 --gbs 64 --framework maxtext",
              &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "  schedule GPipe,"));
  run_result_clear (&r);
  run_assert_error ("plan show --model llama3-8b --gpus 64 --tp 4 --pp 2 --gbs 64 --schedule 1F1B "
                    "--framework maxtext", 2, "--schedule 1F1B: the maxtext stack does not "
                    "offer it (it offers GPipe)");
}

/* torchtitan's eager SwiGLU keeps silu's output beside the gate, the up projection and the
 * product (stack swiglu_saves eager); --compile leaves the fused set. Llama 3 8B at
 * 8,192 tokens, tp 1: 2 T f = 2 x 8,192 x 14,336 = 234,881,024 B a layer between the two. */
static void
test_memory_eager_swiglu (void)
{
  const char *plan = "memory --framework torchtitan --model llama3-8b --gpus 8 --gbs 8 "
                     "--seq-length 8192 --sharding zero3 --json";
  g_assert_cmpint (act_bytes_difference (plan, "--compile"), ==, 234881024);
}

/* DualPipe: each rank holds two chunks (its stage of the model and the mirrored one), and
 * plan show lists both. Llama 3 8B, pp 4: 32 layers, 8 a model chunk; rank 0 holds model
 * chunk 0 (layers 0..7) and the mirrored chunk 3 (24..31): 16 layers, as the chunks sum
 * (only the first was listed). DualPipe is hai-llm's (DeepSeek-V3's) schedule: plan show
 * refuses it under the default megatron-core stack, as predict does. */
static void
test_plan_show_dualpipe (void)
{
  RunResult r = { 0 };
  run_tandem ("plan show --model llama3-8b --gpus 8 --pp 4 --gbs 16 --schedule DualPipe "
              "--framework hai-llm --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = parse_object (r.out, p);
  JsonArray *stages = json_object_get_array_member (o, "stages");
  JsonObject *s0 = json_array_get_object_element (stages, 0);
  g_assert_cmpint (json_object_get_int_member (s0, "layers"), ==, 16);
  JsonArray *chunks = json_object_get_array_member (s0, "chunks");
  g_assert_cmpuint (json_array_get_length (chunks), ==, 2);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (chunks, 1),
                                               "first_layer"), ==, 24);
  run_result_clear (&r);
}

/* A stack's own schedule and sharding where the plan names none, as validate reads a row
 * under it (README: hai-llm runs DualPipe "where a plan names no schedule"). Llama 3 8B,
 * pp 4 on 8 GPUs (dp 2), gbs 16: 8 micro-batches, even and >= 2 x 4, so DualPipe; the
 * same plan's step equals the one with --schedule DualPipe typed. gbs 12 gives 6 < 8:
 * 1F1B stays. A stack that does not run "none" (default zero3; offers zero2 and zero3
 * alone) takes zero3 for a plan that names no sharding: every plan was refused for a
 * "--sharding none" never given. */
static void
test_stack_defaults_adopted (void)
{
  RunResult a = { 0 }, b = { 0 };
  run_tandem ("plan show --model llama3-8b --gpus 8 --pp 4 --gbs 16 --framework hai-llm "
              "--json", &a);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_nonnull (strstr (a.out, "-DualPipe\""));
  run_result_clear (&a);
  run_tandem ("predict --model llama3-8b --gpus 8 --pp 4 --gbs 16 --seq-length 2048 "
              "--framework hai-llm --no-db --json", &a);
  run_tandem ("predict --model llama3-8b --gpus 8 --pp 4 --gbs 16 --seq-length 2048 "
              "--framework hai-llm --no-db --schedule DualPipe --json", &b);
  /* (out of memory at 93.68 GiB of 80 unsharded: exit 3, the prediction printed first) */
  g_assert_cmpint (a.status, ==, 3);
  g_assert_cmpint (b.status, ==, 3);
  g_autoptr (JsonParser) pa = json_parser_new ();
  g_autoptr (JsonParser) pb = json_parser_new ();
  g_assert_cmpfloat (json_object_get_double_member (parse_object (a.out, pa), "step_time_s"), ==,
                     json_object_get_double_member (parse_object (b.out, pb), "step_time_s"));
  run_result_clear (&a);
  run_result_clear (&b);
  run_tandem ("plan show --model llama3-8b --gpus 8 --pp 4 --gbs 12 --framework hai-llm "
              "--json", &a);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_nonnull (strstr (a.out, "-1F1B\""));
  run_result_clear (&a);
  g_autofree char *dir = run_make_tmp ("tandem-stack");
  run_write_file (dir, "fsdp-only.json",
                  "{ \"name\": \"fsdp-only\", \"attention\": \"flash2\", \"fusion\": "
                  "\"eager\", \"kernel_overhead_us\": 5, \"offers\": { \"sharding\": "
                  "[\"zero3\", \"zero2\"] }, \"defaults\": { \"sharding\": \"zero3\" } }\n");
  g_autofree char *args = g_strdup_printf ("plan show --model llama3-8b --gpus 8 --gbs 16 "
                                           "--framework %s/fsdp-only.json --json", dir);
  run_tandem (args, &a);
  if (a.status != 0)
    g_error ("%s", a.err);
  g_assert_nonnull (strstr (a.out, "-zero3-1F1B\""));
  run_result_clear (&a);
  remove_tree (dir);
}

/* Fewer micro-batches than pipeline stages warns on stderr. Llama 3 8B on 64 GPUs with
 * tp 8, pp 4: dp = 64 / (8 x 4) = 2; --gbs 4 with mbs 1 gives m = 4 / (1 x 2) = 2 < pp = 4.
 * The 1F1B bubble is (pp-1)/(m+pp-1) = 3/5 = 60.0%; m = 4 x pp = 16 needs
 * gbs = 16 x 1 x 2 = 32. --gbs 8 gives m = 4 = pp: no warning (the rule is m < pp). */
static void
test_predict_bubble_warning (void)
{
  RunResult r = { 0 };
  run_tandem ("predict --model llama3-8b --gpus 64 --tp 8 --pp 4 --gbs 4 --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "tandem: warning: 2 micro-batches per step on 4 pipeline "
                            "stages: the pipeline idles (pp-1)/(m+pp-1) = 60.0% of an "
                            "ideal step (hint: --gbs 32 gives m = 4 x pp = 16)\n"));
  run_result_clear (&r);
  run_tandem ("predict --model llama3-8b --gpus 64 --tp 8 --pp 4 --gbs 8 --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.err, "warning"));
  run_result_clear (&r);
}

/* --optimizer-offload moves the optimizer states to the host in the memory model, but the
 * step program has no host optimizer step and no PCIe copies, so the step time is the one
 * of the same plan without offload (asserted below: equal to the last digit). predict
 * printed it as the prediction without a word, while the what-would-fit table marks its
 * offload rows "step time not modelled"; now predict, search, report scaling and
 * import-log say so on stderr, and say nothing without offload. */
static void
test_untimed_offload_warning (void)
{
  static const char *const warn = "tandem: warning: --optimizer-offload: the step time leaves "
    "out the host's optimizer step and the copies of gradients and parameters over PCIe (not "
    "simulated; the memory is modelled): it is the same plan's step without offload\n";
  RunResult a = { 0 }, b = { 0 };
  run_tandem ("predict --model llama3-8b --gpus 8 --tp 8 --gbs 8 --seq-length 2048 --no-db "
              "--json --optimizer-offload", &a);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_cmpstr (a.err, ==, warn);
  run_tandem ("predict --model llama3-8b --gpus 8 --tp 8 --gbs 8 --seq-length 2048 --no-db "
              "--json", &b);
  g_assert_cmpint (b.status, ==, 0);
  g_assert_null (strstr (b.err, "warning"));
  g_autoptr (JsonParser) pa = json_parser_new ();
  g_autoptr (JsonParser) pb = json_parser_new ();
  g_assert_cmpfloat (json_object_get_double_member (parse_object (a.out, pa), "step_time_s"),
                     ==, json_object_get_double_member (parse_object (b.out, pb),
                                                        "step_time_s"));
  run_result_clear (&a);
  run_result_clear (&b);
  static const char *const others[] = {
    "search --model llama3-8b --gpus 8 --gbs 8 --seq-length 2048 --tp 8 --top 1 --no-db "
    "--optimizer-offload",
    "report scaling --model llama3-8b --gpus 8,16 --tp 8 --gbs 16 --seq-length 2048 --strong "
    "--json --optimizer-offload",
    "import-log {DATA}/logs/torchtitan.log --model llama3-8b --gpus 8 --sharding zero3 --gbs 8 "
    "--seq-length 8192 --no-db --optimizer-offload",
  };
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    {
      run_tandem (others[i], &a);
      g_assert_cmpint (a.status, ==, 0);
      g_assert_nonnull (strstr (a.err, warn));
      run_result_clear (&a);
    }
}

/* An FSDP stack named by --framework says when the plan shards less than the stack's
 * default (pytorch-fsdp: zero3 in its preset; Megatron's flag default is none), and says
 * nothing once the plan follows it or for megatron-core (zero1 is not FSDP). Llama 3 8B on
 * 64 H100 at TP 8 fits unsharded (dp 8). */
static void
test_predict_stack_sharding_note (void)
{
  static const struct { const char *flags; gboolean note; } cases[] = {
    { "--framework pytorch-fsdp", TRUE },
    { "--framework pytorch-fsdp --sharding zero3", FALSE },
    { "--framework megatron-core", FALSE },
    { "", FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RunResult r = { 0 };
      g_autofree char *args = g_strdup_printf ("predict --model llama3-8b --gpus 64 --tp 8 "
                                               "--gbs 64 --no-db %s", cases[i].flags);
      run_tandem (args, &r);
      g_assert_cmpint (r.status, ==, 0);
      const char *note = "  note: the pytorch-fsdp stack shards as zero3 where a run does "
                         "not say; this plan runs none (--sharding zero3 to follow the "
                         "stack)\n";
      if (cases[i].note)
        g_assert_nonnull (strstr (r.out, note));
      else
        g_assert_null (strstr (r.out, "note: the"));
      run_result_clear (&r);
    }
}

/* The work of a prediction whose first shorter step showed no period: Llama-3 405B on
 * 16,384 GPUs of h100-24k, TP8 PP8 V = 4 (DP 256), the embedding and the loss in the split,
 * 64 micro-batches (gbs 16,384), the megatron-core stack. A group is q = 8 micro-batches,
 * P = 2 x 8 x 4 = 64 units, w0 = 2 (8 - 1) + (4 - 1) 8 = 38; predict.c's trials m' =
 * ceil ((2 w0 + h P / 2) / 8) in whole groups: h = 3 gives (76 + 96) / 8 = 21.5 -> 24
 * (27,447 tasks), whose stage 0 shows no period; h = 5 gives (76 + 160) / 8 = 29.5 -> 32
 * (36,551 tasks), which extends by (64 - 32) / 8 = 4 periods: events 36,551 (the kept
 * simulation), 27,447 + 36,551 = 63,998 tasks simulated in all. The plan is out of memory
 * (status 3); the prediction is printed all the same. */
static void
test_predict_tasks_in_all (void)
{
  const char *plan = "predict --model llama3-405b --cluster h100-24k --gpus 16384 --tp 8 "
                     "--pp 8 --vpp 4 --seq-length 8192 --global-batch-size 16384 "
                     "--account-for-embedding-in-pipeline-split "
                     "--account-for-loss-in-pipeline-split --no-db";
  g_autofree char *json = g_strdup_printf ("%s --json", plan);
  RunResult r = { 0 };
  run_tandem (json, &r);
  g_assert_cmpint (r.status, ==, 3);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = parse_object (r.out, p);
  g_assert_cmpint (json_object_get_int_member (o, "events"), ==, 36551);
  g_assert_cmpint (json_object_get_int_member (o, "tasks_simulated_in_all"), ==, 63998);
  g_assert_cmpint (json_object_get_int_member (o, "steady_periods"), ==, 4);
  run_result_clear (&r);
  run_tandem (plan, &r);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.out, "63998 tasks simulated in all (2 shorter steps tried)"));
  run_result_clear (&r);
}

/* tandem predict --json carries the contract's keys; the trace is Chrome Trace JSON with
 * one process per pipeline stage's rank, named stream threads and paired flow arrows;
 * the prediction is stored and `tandem runs` lists it. */
static void
test_predict_trace_store (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tandem-cli-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "t.db", NULL);
  g_autofree char *trace = g_build_filename (dir, "trace.json", NULL);
  g_autofree char *args = g_strdup_printf ("predict --model llama3-8b --gpus 64 --tp 2 --pp 4 "
                                           "--sp --gbs 64 --seq-length 4096 --json --db %s "
                                           "--trace %s", db, trace);
  RunResult r = { 0 };
  run_tandem (args, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = parse_object (r.out, p);
  const char *keys[] = { "step_time_s", "tokens_per_s", "mfu", "hfu", "bubble_fraction",
                         "exposed_comm_s", "memory", "sim_wall_s", "run_id" };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (!json_object_has_member (o, keys[i]))
      g_error ("predict --json lacks '%s'", keys[i]);
  double step = json_object_get_double_member (o, "step_time_s");
  g_assert_cmpfloat (step, >, 0);
  /* tokens/s = 64 x 4096 / step */
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "tokens_per_s") * step,
                                  64.0 * 4096, 1e-3);
  JsonObject *mfu = json_object_get_object_member (o, "mfu");
  const char *convs[] = { "megatron96", "megatron72", "mcore", "causal", "palm" };
  for (guint i = 0; i < G_N_ELEMENTS (convs); i++)
    {
      double v = json_object_get_double_member (mfu, convs[i]);
      g_assert_cmpfloat (v, >, 0);
      g_assert_cmpfloat (v, <, 1);
    }
  /* hfu is one number (no convention): executed FLOPs / (time x GPUs x peak), so it is
   * hw_tflops_per_gpu over the peak */
  JsonNode *hfu = json_object_get_member (o, "hfu");
  g_assert_true (JSON_NODE_HOLDS_VALUE (hfu));
  g_assert_cmpfloat_with_epsilon (json_node_get_double (hfu),
                                  json_object_get_double_member (o, "hw_tflops_per_gpu") * 1e12
                                  / json_object_get_double_member (o, "peak_flops_per_gpu"),
                                  1e-12);
  /* comm_s and exposed_comm_s, top level and per stage: exactly tp, cp, ep, pp, dp in that
   * order; ep 0.0 for this dense model */
  const char *kinds[] = { "tp", "cp", "ep", "pp", "dp" };
  JsonArray *stages = json_object_get_array_member (o, "stages");
  g_assert_cmpint (json_array_get_length (stages), ==, 4);
  for (guint s = 0; s <= json_array_get_length (stages); s++)
    {
      JsonObject *holder = s == 0 ? o : json_array_get_object_element (stages, s - 1);
      const char *members[] = { "comm_s", "exposed_comm_s" };
      for (guint m = 0; m < G_N_ELEMENTS (members); m++)
        {
          JsonObject *ex = json_object_get_object_member (holder, members[m]);
          g_autoptr (GList) names = json_object_get_members (ex);
          g_assert_cmpint (g_list_length (names), ==, G_N_ELEMENTS (kinds));
          guint i = 0;
          for (GList *l = names; l; l = l->next, i++)
            g_assert_cmpstr (l->data, ==, kinds[i]);
          g_assert_cmpfloat (json_object_get_double_member (ex, "ep"), ==, 0.0);
        }
    }
  JsonObject *mem = json_object_get_object_member (o, "memory");
  g_assert_true (json_object_has_member (mem, "peak_bytes"));
  g_assert_true (json_object_has_member (mem, "fits"));
  g_assert_true (json_object_has_member (mem, "categories"));
  gint64 run_id = json_object_get_int_member (o, "run_id");

  /* the trace */
  g_autoptr (JsonParser) tp = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_file (tp, trace, &error));
  JsonArray *ev = json_object_get_array_member (json_node_get_object (json_parser_get_root (tp)),
                                                "traceEvents");
  int processes = 0, threads = 0, slices = 0, flow_s = 0, flow_f = 0, regathers = 0;
  for (guint i = 0; i < json_array_get_length (ev); i++)
    {
      JsonObject *e = json_array_get_object_element (ev, i);
      const char *ph = json_object_get_string_member (e, "ph");
      const char *name = json_object_get_string_member (e, "name");
      if (g_str_equal (ph, "M") && g_str_equal (name, "process_name"))
        processes++;
      else if (g_str_equal (ph, "M") && g_str_equal (name, "thread_name"))
        threads++;
      else if (g_str_equal (ph, "X"))
        {
          slices++;
          regathers += strstr (name, "(re-gather of the") != NULL;
        }
      else if (g_str_equal (ph, "s"))
        flow_s++;
      else if (g_str_equal (ph, "f"))
        flow_f++;
    }
  g_assert_cmpint (processes, ==, 4);          /* pp = 4 stages */
  g_assert_cmpint (threads, ==, 4 * 6);        /* six named streams each */
  g_assert_cmpint (slices, ==, json_object_get_int_member (o, "tasks"));
  assert_tracks_nest (ev);
  g_assert_cmpint (flow_s, >, 0);
  g_assert_cmpint (flow_s, ==, flow_f);        /* every send has its receive */
  /* SP's backward re-gathers, named: 2 per layer and micro-batch, 8 layers per stage,
   * 64 / (1 x dp 8) = 8 micro-batches, 4 stages: 512 */
  g_assert_cmpint (regathers, ==, 512);
  run_result_clear (&r);

  /* stored, and listed */
  g_autofree char *runs = g_strdup_printf ("runs --json --db %s", db);
  run_tandem (runs, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) rp = json_parser_new ();
  JsonObject *ro = parse_object (r.out, rp);
  JsonArray *list = json_object_get_array_member (ro, "runs");
  g_assert_cmpint (json_array_get_length (list), ==, 1);
  JsonObject *row = json_array_get_object_element (list, 0);
  g_assert_cmpint (json_object_get_int_member (row, "run_id"), ==, run_id);
  g_assert_cmpstr (json_object_get_string_member (row, "kind"), ==, "predict");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (row, "predicted_step_s"), step,
                                  1e-12);
  run_result_clear (&r);

  remove_tree (dir);
}

/* A model file whose name holds a quote and a backslash: the trace names the model (its
 * file name without .json), escaped by json-glib, so the trace is still valid JSON and
 * the name reads back unchanged (the printf-built trace wrote it raw: invalid JSON). */
static void
test_trace_escaped (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("tandem-cli-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *src = g_test_build_filename (G_TEST_DIST, "data", "models", "pythia-70m.json",
                                                NULL);
  g_autofree char *text = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (src, &text, &len, &error));
  g_autofree char *model = g_build_filename (dir, "py\"thia\\70m.json", NULL);
  g_assert_true (g_file_set_contents (model, text, (gssize) len, &error));
  g_autofree char *trace = g_build_filename (dir, "trace.json", NULL);
  const char *exe = g_getenv ("TANDEM_EXE");
  const char *argv[] = { exe, "predict", "--model", model, "--cluster", "h200-node", "--gpus",
                         "8", "--pp", "2", "--gbs", "16", "--seq-length", "2048", "--no-db",
                         "--trace", trace, NULL };
  g_autoptr (GSubprocess) proc = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_SILENCE,
                                                    &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_wait_check (proc, NULL, &error));
  g_autoptr (JsonParser) tp = json_parser_new ();
  g_assert_true (json_parser_load_from_file (tp, trace, &error));
  g_assert_no_error (error);
  JsonObject *other = json_object_get_object_member (json_node_get_object (
                                                       json_parser_get_root (tp)), "otherData");
  g_assert_cmpstr (json_object_get_string_member (other, "model"), ==, "py\"thia\\70m");
  remove_tree (dir);
}

/* --trace t.json.gz wrote plain JSON under a gzip name (gunzip and Perfetto refuse it):
 * gzipped now, and it unpacks to the trace. A second predict replaces it (the check that
 * an existing file is a trace reads the gzipped text); a gzip file that is no trace is
 * still refused. */
static void
test_trace_gzip (void)
{
  g_autofree char *dir = run_make_tmp ("tandem-cli");
  const char *args = "predict --model {DATA}/models/pythia-70m.json --cluster h200-node "
                     "--gpus 8 --gbs 16 --seq-length 2048 --no-db --trace {TMP}/t.json.gz";
  for (int pass = 0; pass < 2; pass++)
    {
      RunResult r = { 0 };
      run_tandem (args, &r);
      g_assert_cmpint (r.status, ==, 0);
      run_result_clear (&r);
    }
  g_autofree char *path = g_build_filename (dir, "t.json.gz", NULL);
  g_autofree char *raw = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &raw, &len, NULL));
  /* gzip's magic, RFC 1952 section 2.3.1 */
  g_assert_cmpuint (len, >, 2);
  g_assert_cmphex ((guchar) raw[0], ==, 0x1f);
  g_assert_cmphex ((guchar) raw[1], ==, 0x8b);
  g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GInputStream) mem = g_memory_input_stream_new_from_data (raw, (gssize) len, NULL);
  g_autoptr (GInputStream) in = g_converter_input_stream_new (mem, G_CONVERTER (z));
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonParser) tp = json_parser_new ();
  g_assert_true (json_parser_load_from_stream (tp, in, NULL, &error));
  g_assert_no_error (error);
  JsonObject *root = json_node_get_object (json_parser_get_root (tp));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "traceEvents")),
                    >, 0);
  /* a gzip file that holds no trace is not replaced */
  g_autofree char *other = g_build_filename (dir, "other.gz", NULL);
  g_autoptr (GZlibCompressor) c = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, -1);
  g_autoptr (GOutputStream) om = g_memory_output_stream_new_resizable ();
  g_autoptr (GOutputStream) oc = g_converter_output_stream_new (om, G_CONVERTER (c));
  g_assert_true (g_output_stream_write_all (oc, "notes\n", 6, NULL, NULL, &error));
  g_assert_true (g_output_stream_close (oc, NULL, &error));
  g_assert_true (g_file_set_contents (other,
                                      g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (om)),
                                      (gssize) g_memory_output_stream_get_data_size (
                                        G_MEMORY_OUTPUT_STREAM (om)), &error));
  run_assert_error ("predict --model {DATA}/models/pythia-70m.json --cluster h200-node --gpus 8 "
                    "--gbs 16 --seq-length 2048 --no-db --trace {TMP}/other.gz", 2,
                    "other.gz exists and is not a trace tandem wrote");
  remove_tree (dir);
}

/* A plan that does not fit is predicted, loudly marked, stored as 'oom', and exits 3. */
static void
test_predict_oom (void)
{
  g_autofree char *dir = g_dir_make_tmp ("tandem-cli-XXXXXX", NULL);
  g_autofree char *db = g_build_filename (dir, "t.db", NULL);
  g_autofree char *args = g_strdup_printf ("predict --model llama3-70b --gpus 8 --tp 8 --gbs 8 "
                                           "--db %s", db);
  RunResult r = { 0 };
  run_tandem (args, &r);
  /* printed, stored, then exit 3 (docs/contracts.md) */
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.out, "OUT OF MEMORY"));
  g_assert_nonnull (strstr (r.out, "step time"));
  g_assert_nonnull (strstr (r.out, "stored as run 1"));
  g_assert_true (g_str_has_prefix (r.err, "tandem: error: does not fit"));
  run_result_clear (&r);
  /* the same with --json: the JSON says oom, the status is 3 */
  g_autofree char *jargs = g_strconcat (args, " --json", NULL);
  run_tandem (jargs, &r);
  g_assert_cmpint (r.status, ==, 3);
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = parse_object (r.out, p);
  g_assert_true (json_object_get_boolean_member (o, "oom"));
  run_result_clear (&r);
  g_autofree char *runs = g_strdup_printf ("runs --db %s", db);
  run_tandem (runs, &r);
  g_assert_nonnull (strstr (r.out, "oom"));
  run_result_clear (&r);
  remove_tree (dir);
}

/* An unwritable database path is a clear runtime error (status 1), not a crash. */
static void
test_predict_bad_db (void)
{
  RunResult r = { 0 };
  run_tandem ("predict --model llama3-8b --gpus 8 --tp 8 --db /nonexistent-dir/sub/t.db", &r);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "tandem: error: "));
  g_assert_nonnull (strstr (r.err, "/nonexistent-dir/sub"));
  run_result_clear (&r);
  run_tandem ("runs --db /nonexistent-dir/t.db", &r);
  g_assert_cmpint (r.status, ==, 2);
  run_result_clear (&r);
  run_tandem ("predict --model no-such-model --no-db", &r);
  g_assert_cmpint (r.status, ==, 2);
  run_result_clear (&r);
  run_tandem ("predict --model llama3-8b --gpus 8 --no-db --flops bogus", &r);
  g_assert_cmpint (r.status, ==, 2);
  run_result_clear (&r);
}

/* An MoE prediction's text names the FLOP conventions that are refused for MoE
 * (megatron96 and megatron72 assume an ffn of 4h: model_flop_convention_refusal) as n/a,
 * not as "0.0%", and shows the ep row of the communication table with a non-zero busy
 * time (EP 8 over 64 GPUs: every MoE layer dispatches and combines through all-to-alls). */
static void
test_predict_moe_text (void)
{
  RunResult r = { 0 };
  run_tandem ("predict --model mixtral-8x7b --cluster h100-24k --gpus 64 --pp 4 --ep 8 "
              "--gbs 256 --seq-length 4096 --sharding zero1 --moe-grouped-gemm --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "megatron96 n/a  megatron72 n/a  mcore "));
  g_assert_null (strstr (r.out, "megatron96 0.0%"));
  const char *ep = strstr (r.out, "\n    ep ");
  g_assert_nonnull (ep);
  double busy = g_ascii_strtod (ep + strlen ("\n    ep "), NULL);
  g_assert_cmpfloat (busy, >, 0.0);
  run_result_clear (&r);
  /* and a headline in one of those conventions is refused, not printed as "MFU 0.0 %"
   * and stored as 0 (the same for report scaling, whose per-size MFU read 0.0%) */
  run_tandem ("predict --model mixtral-8x7b --cluster h100-24k --gpus 64 --ep 8 --gbs 256 "
              "--sharding zero1 --flops megatron96 --no-db", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "--flops megatron96 does not apply to mixtral-8x7b"));
  g_assert_null (strstr (r.out, "MFU"));
  run_result_clear (&r);
  /* the JSON's refused conventions are null (unknown), not 0.0 */
  run_tandem ("predict --model mixtral-8x7b --cluster h100-24k --gpus 64 --pp 4 --ep 8 "
              "--gbs 256 --seq-length 4096 --sharding zero1 --moe-grouped-gemm --no-db --json",
              &r);
  g_assert_cmpint (r.status, ==, 0);
  {
    g_autoptr (JsonNode) root = json_from_string (r.out, NULL);
    g_assert_nonnull (root);
    JsonObject *mfu = json_object_get_object_member (json_node_get_object (root), "mfu");
    g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (mfu, "megatron96")));
    g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (mfu, "megatron72")));
    g_assert_cmpfloat (json_object_get_double_member (mfu, "mcore"), >, 0.0);
  }
  run_result_clear (&r);
}

/* A sequence past the context a rotary model was trained to is timed, and said: Llama 2
 * 7B has 4,096 positions, so 8,192 tokens gets the note and 4,096 does not. (A learned
 * table refuses the sequence in validation instead.) */
static void
test_predict_past_context (void)
{
  RunResult r = { 0 };
  run_tandem ("predict --model llama2-7b --gpus 8 --tp 8 --sp --seq-length 8192 --gbs 8 --no-db",
              &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "note: --seq-length 8192 is beyond the 4096 positions "
                            "llama2-7b was trained to"));
  run_result_clear (&r);
  run_tandem ("predict --model llama2-7b --gpus 8 --tp 8 --sp --seq-length 4096 --gbs 8 --no-db",
              &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, "is beyond the"));
  run_result_clear (&r);
}

/* CUDA graphs on a dense model: the step is the same with and without them (tandem times
 * only an MoE layer's host work under graphs), and the output says so instead of letting
 * the flag look timed; a MoE model gets no such note */
static void
test_predict_cuda_graph_dense (void)
{
  RunResult r = { 0 }, plain = { 0 };
  run_tandem ("predict --model llama2-7b --gpus 8 --tp 8 --sp --gbs 8 --no-db --json", &plain);
  run_tandem ("predict --model llama2-7b --gpus 8 --tp 8 --sp --gbs 8 --no-db --json "
              "--cuda-graph-impl local", &r);
  g_assert_cmpint (plain.status, ==, 0);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) a = json_parser_new ();
  g_autoptr (JsonParser) b = json_parser_new ();
  g_assert_true (json_parser_load_from_data (a, plain.out, -1, NULL));
  g_assert_true (json_parser_load_from_data (b, r.out, -1, NULL));
  g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (
                       json_parser_get_root (a)), "step_time_s"), ==,
                     json_object_get_double_member (json_node_get_object (
                       json_parser_get_root (b)), "step_time_s"));
  run_result_clear (&r);
  run_result_clear (&plain);
  run_tandem ("predict --model llama2-7b --gpus 8 --tp 8 --sp --gbs 8 --no-db "
              "--cuda-graph-impl local", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "note: --cuda-graph-impl local: tandem models CUDA graphs "
                            "where they remove an MoE layer's host work; llama2-7b has no MoE "
                            "layers, so this prediction is the same without them"));
  run_result_clear (&r);
  run_tandem ("predict --model tiny-mixtral --gpus 8 --ep 4 --gbs 8 --seq-length 256 --no-db "
              "--cuda-graph-impl local", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, "has no MoE layers"));
  run_result_clear (&r);
}

/* HSDP where the stack offers it: the search leaves it out of megatron-core's space
 * ("does not offer HSDP"), and predict now says the same instead of predicting a plan
 * the stack cannot run (megatron-core.json fsdp.hsdp false; torchtitan's
 * data_parallel_replicate_degree, true). */
static void
test_hsdp_needs_stack (void)
{
  RunResult r = { 0 };
  run_tandem ("predict --model llama3-8b --cluster dgx-h100-superpod --gpus 32 --gbs 64 "
              "--tp 1 --sharding hsdp:8 --no-db", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "tandem: error: --sharding hsdp: the megatron-core stack does "
                   "not offer HSDP (hint: zero3, or --framework torchtitan, pytorch-fsdp, "
                   "deepspeed, llm-foundry or maxtext)\n");
  run_result_clear (&r);
  run_tandem ("predict --model llama3-8b --cluster dgx-h100-superpod --gpus 32 --gbs 64 "
              "--tp 1 --sharding hsdp:8 --framework torchtitan --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "-dp32x8-"));
  run_result_clear (&r);
  /* in a search's list too: zero1,hsdp:2 searched zero1 alone and said nothing */
  run_tandem ("search --model llama3-8b --cluster dgx-h100-superpod --gpus 16 --gbs 64 "
              "--seq-length 4096 --sharding zero1,hsdp:2 --top 1 --no-db", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "--sharding hsdp: the megatron-core stack does not offer "
                                   "HSDP"));
  run_result_clear (&r);
}

/* --no-gradient-accumulation-fusion is modelled as Megatron-FSDP's copy of each
 * micro-batch's gradients into the reduce-scatter bucket (plan.h zero3_grad_copy_in), so
 * a plan that is not fully sharded, where the flag would change nothing, is refused with
 * exit 2; with --sharding zero3 it predicts. */
static void
test_grad_acc_fusion_needs_zero3 (void)
{
  RunResult r = { 0 };
  run_tandem ("predict --model llama3-8b --cluster dgx-h100-superpod --gpus 8 --gbs 8 "
              "--seq-length 2048 --no-gradient-accumulation-fusion --no-db", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "tandem: error: --no-gradient-accumulation-fusion is modelled "
                   "for fully sharded plans (Megatron-FSDP's copy of each micro-batch's "
                   "gradients into the reduce-scatter bucket), and this plan's sharding is "
                   "none (hint: add --sharding zero3, or drop the flag)\n");
  run_result_clear (&r);
  run_tandem ("predict --model llama3-8b --cluster dgx-h100-superpod --gpus 8 --gbs 8 "
              "--seq-length 2048 --sharding zero3 --no-gradient-accumulation-fusion --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
}

/* TP-comm overlap where the stack has none: `tandem search` leaves it out of such a
 * stack's space ("--tp-comm-overlap: the deepspeed stack does not offer it"), and predict
 * costed it anyway, as Megatron's userbuffers overlap (deepspeed.json tp_comm_overlap
 * "no", async_tp "no"; 4.60 s against 4.87 s without it for this plan). Now it refuses
 * the same way; megatron-core (tp_comm_overlap "optional") still predicts it. */
static void
test_tp_overlap_needs_stack (void)
{
  RunResult r = { 0 };
  run_tandem ("predict --model llama3-8b --cluster dgx-h100-superpod --gpus 16 --gbs 64 "
              "--tp 2 --sharding zero1 --recompute-granularity full --sequence-parallel "
              "--tp-comm-overlap --framework deepspeed --no-db", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "tandem: error: --tp-comm-overlap: the deepspeed stack does not "
                   "offer it (hint: drop the flag, or --framework megatron-core or nemo)\n");
  run_result_clear (&r);
  run_tandem ("predict --model llama3-8b --cluster dgx-h100-superpod --gpus 16 --gbs 64 "
              "--tp 2 --sharding zero1 --recompute-granularity full --sequence-parallel "
              "--tp-comm-overlap --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
  /* torchtitan overlaps TP only as async TP (torchtitan.json: "no separate
   * userbuffers-style overlap"): the plain flag is refused with the async-TP hint, and
   * --async-tp --compile predicts */
  run_tandem ("predict --model llama3-8b --cluster dgx-h100-superpod --gpus 16 --gbs 64 "
              "--tp 2 --sharding zero1 --recompute-granularity full --sequence-parallel "
              "--tp-comm-overlap --framework torchtitan --no-db", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "tandem: error: --tp-comm-overlap: the torchtitan stack overlaps "
                   "TP only as async TP (hint: --async-tp --compile instead)\n");
  run_result_clear (&r);
  run_tandem ("predict --model llama3-8b --cluster dgx-h100-superpod --gpus 16 --gbs 64 "
              "--tp 2 --sharding zero3 --recompute-granularity full --sequence-parallel "
              "--async-tp --compile --framework torchtitan --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  run_result_clear (&r);
}

/* --precision in the spellings people write (issue: "fp8, float8, FP8-hybrid, MXFP8,
 * NVFP4"): each is the canonical plan, so the same summary and step time. On B200 (which
 * has MXFP8 block-scaled GEMMs): float8 (torchao's name) = fp8; FP8-hybrid (NeMo's
 * precision name: E4M3 forward, E5M2 gradients) = --fp8-format hybrid = fp8; MXFP8 =
 * fp8 with --fp8-recipe mxfp8 (the summary says -fp8-mxfp8); NVFP4 = fp4; bfloat16 = bf16.
 * Each pair is compared, so the test holds whatever the cost model's numbers are. */
static void
test_precision_spellings (void)
{
  static const char *pairs[][2] = {
    { "--precision float8", "--precision fp8" },
    { "--precision FP8-hybrid", "--fp8-format hybrid" },
    { "--precision MXFP8", "--precision fp8 --fp8-recipe mxfp8" },
    { "--precision NVFP4", "--precision fp4" },
    { "--precision bfloat16", "--precision bf16" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (pairs); i++)
    {
      g_autoptr (JsonParser) pa = json_parser_new (), pb = json_parser_new ();
      JsonObject *o[2];
      RunResult r[2] = { { 0 }, { 0 } };
      for (guint k = 0; k < 2; k++)
        {
          g_autofree char *args = g_strdup_printf (
            "predict --model llama3-8b --cluster dgx-b200-superpod --gpus 8 --tp 1 --gbs 8 "
            "--mbs 1 --seq-length 4096 --sharding zero1 %s --no-db --json", pairs[i][k]);
          run_tandem (args, &r[k]);
          if (r[k].status != 0)
            g_error ("tandem %s: exit %d: %s", args, r[k].status, r[k].err);
          o[k] = parse_object (r[k].out, k ? pb : pa);
        }
      const char *sum = json_object_get_string_member (
        json_object_get_object_member (o[0], "plan"), "summary");
      g_assert_cmpstr (sum, ==, json_object_get_string_member (
                                  json_object_get_object_member (o[1], "plan"), "summary"));
      g_assert_cmpfloat (json_object_get_double_member (o[0], "step_time_s"), ==,
                         json_object_get_double_member (o[1], "step_time_s"));
      if (i == 2)
        g_assert_true (g_str_has_suffix (sum, "-fp8-mxfp8-1F1B"));
      run_result_clear (&r[0]);
      run_result_clear (&r[1]);
    }
}

/* Where a prediction is weak it says so: predict quotes how well published runs of its
 * kind (dense or MoE) on its device family were predicted (data/accuracy.json, which
 * tests/results/test-published.c keeps equal to validate's figures), and its stack's own
 * figure where that stack ran enough of them. A dense H100 plan gets the H100 dev and
 * held-out means, its typical error the held-out one or the stack's if larger; a MoE plan
 * the MoE mean, flagged weak; a device family with no published run, extrapolated. */
static void
test_predict_accuracy (void)
{
  RunResult r = { 0 };
  run_tandem ("predict --model llama3-8b --cluster dgx-h100-superpod --gpus 8 --gbs 64 "
              "--seq-length 4096 --use-distributed-optimizer --recompute-granularity full "
              "--no-db --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  JsonObject *a = json_object_get_object_member (json_node_get_object (root), "accuracy");
  g_assert_cmpstr (json_object_get_string_member (a, "family"), ==, "h100");
  g_assert_cmpstr (json_object_get_string_member (a, "kind"), ==, "dense");
  JsonObject *held = json_object_get_object_member (a, "held_out");
  /* the typical error: the H100 held-out mean, or the stack's own (megatron-core's
   * dense runs) where that is larger */
  double want = json_object_get_double_member (held, "mape_pct");
  if (!json_object_get_null_member (a, "stack"))
    want = MAX (want, json_object_get_double_member (
                        json_object_get_object_member (a, "stack"), "mape_pct"));
  g_assert_cmpfloat (json_object_get_double_member (a, "typical_error_pct"), ==, want);
  g_assert_true (json_object_get_null_member (a, "moe"));
  run_result_clear (&r);
  run_tandem ("predict --model llama3-8b --cluster dgx-h100-superpod --gpus 8 --gbs 64 "
              "--seq-length 4096 --use-distributed-optimizer --recompute-granularity full "
              "--no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\n  accuracy: dense runs on h100 were predicted with "));
  run_result_clear (&r);
  run_tandem ("predict --model tiny-mixtral --cluster dgx-h100-superpod --gpus 8 --ep 4 "
              "--gbs 32 --seq-length 2048 --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\n  accuracy: weak: mixture-of-experts runs were "
                                   "predicted with "));
  run_result_clear (&r);
  /* the table is the whole CSV's: a subset is refused (exit 2), not written */
  run_tandem ("validate data/published-runs.csv --accuracy-json --only 1-5", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_true (g_str_has_prefix (r.err, "tandem: error: --accuracy-json summarizes every "
                                          "row of the CSV"));
  run_result_clear (&r);
  run_tandem ("predict --model llama3-8b --cluster mi300x-node --gpus 8 --gbs 64 "
              "--seq-length 4096 --use-distributed-optimizer --no-db --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) other = run_parse_json (r.out);
  JsonObject *o = json_object_get_object_member (json_node_get_object (other), "accuracy");
  g_assert_cmpstr (json_object_get_string_member (o, "family"), ==, "other");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (o, "note"),
                                   "no published run on this device family"));
  run_result_clear (&r);
}

/* The slowest GPU (sim/cost.c perf_sigma): predict reports the factor its compute
 * kernels run at. At --cost perf_sigma=0.0148 on 1,024 GPUs (TP 1, DP 1,024): E[max of
 * 1,024 standard normals] = 3.248240 (tests/sim/test-cost.c), factor 1 + 0.0148 x
 * 3.248240 = 1.048074, and the text says so; at perf_sigma 0 the factor is 1 and no line
 * is printed. */
static void
test_predict_stragglers (void)
{
  const char *plan = "predict --model llama3-8b --cluster dgx-h100-superpod --gpus 1024 "
                     "--gbs 1024 --seq-length 8192 --use-distributed-optimizer "
                     "--recompute-granularity full --no-db";
  RunResult r = { 0 };
  g_autofree char *slow = g_strdup_printf ("%s --cost perf_sigma=0.0148 --json", plan);
  run_tandem (slow, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = run_parse_json (r.out);
  JsonObject *s = json_object_get_object_member (json_node_get_object (root), "stragglers");
  g_assert_cmpint (json_object_get_int_member (s, "gpus"), ==, 1024);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (s, "perf_sigma"), 0.0148, 1e-12);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (s, "expected_max_z"), 3.248240,
                                  1e-6);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (s, "compute_factor"), 1.048074,
                                  1e-6);
  run_result_clear (&r);
  g_autofree char *text = g_strdup_printf ("%s --cost perf_sigma=0.0148", plan);
  run_tandem (text, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\n  stragglers: compute x1.048, the slowest of 1024 GPUs "
                                   "at a part-to-part sigma of 1.48%"));
  run_result_clear (&r);
  g_autofree char *off = g_strdup_printf ("%s --cost perf_sigma=0 --json", plan);
  run_tandem (off, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root0 = run_parse_json (r.out);
  JsonObject *s0 = json_object_get_object_member (json_node_get_object (root0), "stragglers");
  g_assert_cmpfloat (json_object_get_double_member (s0, "compute_factor"), ==, 1.0);
  run_result_clear (&r);
  g_autofree char *off_text = g_strdup_printf ("%s --cost perf_sigma=0", plan);
  run_tandem (off_text, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, "stragglers:"));
  run_result_clear (&r);
}

/* A preset copied and renamed keeps what it is only with "part": dgx-h100-superpod with
 * its device named "our-gpu" is no part tandem knows, so predict notes on stderr that its
 * figures are extrapolated and how to name the part, and its accuracy family is "other";
 * with "part": "H100" the note is gone, the accuracy family is h100 and the step time is
 * the preset's to the bit (the same knobs, sim/cost.c); a preset (mi300x-node, which is
 * no known part either) gets no note: it is what it says. */
static void
test_predict_device_part (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("tandem-cli-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *src = g_test_build_filename (G_TEST_DIST, "..", "topology", "presets",
                                                "dgx-h100-superpod.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (src, &text, NULL, &error));
  g_autoptr (GString) renamed = g_string_new (text);
  g_assert_cmpuint (g_string_replace (renamed, "\"name\": \"H100-SXM5-80GB\"",
                                      "\"name\": \"our-gpu\"", 1), ==, 1);
  g_autoptr (GString) parted = g_string_new (text);
  g_string_replace (parted, "\"name\": \"H100-SXM5-80GB\"",
                    "\"name\": \"our-gpu\", \"part\": \"H100\"", 1);
  g_autofree char *rpath = g_build_filename (dir, "renamed.json", NULL);
  g_autofree char *ppath = g_build_filename (dir, "parted.json", NULL);
  g_assert_true (g_file_set_contents (rpath, renamed->str, -1, &error));
  g_assert_true (g_file_set_contents (ppath, parted->str, -1, &error));
  run_tandem_set_tmp (dir);
  const char *plan = "--model llama3-8b --gpus 8 --gbs 64 --seq-length 4096 "
                     "--use-distributed-optimizer --recompute-granularity full --no-db --json";
  const char *clusters[] = { "dgx-h100-superpod", "{TMP}/renamed.json", "{TMP}/parted.json" };
  double step[3];
  for (int i = 0; i < 3; i++)
    {
      RunResult r = { 0 };
      g_autofree char *args = g_strdup_printf ("predict --cluster %s %s", clusters[i], plan);
      run_tandem (args, &r);
      g_assert_cmpint (r.status, ==, 0);
      g_autoptr (JsonNode) root = run_parse_json (r.out);
      JsonObject *o = json_node_get_object (root);
      step[i] = json_object_get_double_member (o, "step_time_s");
      const char *family = json_object_get_string_member (
                             json_object_get_object_member (o, "accuracy"), "family");
      g_assert_cmpstr (family, ==, i == 1 ? "other" : "h100");
      if (i == 1)
        {
          g_assert_nonnull (strstr (r.err, "tandem: note: the device 'our-gpu' of "));
          g_assert_nonnull (strstr (r.err, "say which with \"part\" in the file's device"));
        }
      else
        g_assert_null (strstr (r.err, "no part tandem knows"));
      run_result_clear (&r);
    }
  g_assert_cmpfloat (step[2], ==, step[0]);
  g_assert_cmpfloat (step[1], !=, step[0]);
  RunResult r = { 0 };
  run_tandem ("predict --cluster mi300x-node --model llama3-8b --gpus 8 --gbs 64 "
              "--seq-length 4096 --use-distributed-optimizer --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.err, "no part tandem knows"));
  run_result_clear (&r);
  /* nor a CPU host's file (vendor cpu: tandem run's devices, what tandem calibrate
   * writes), which is no GPU part to name */
  g_autofree char *cpu_src = g_test_build_filename (G_TEST_DIST, "..", "topology", "presets",
                                                    "cpu-host.json", NULL);
  g_autofree char *cpu_text = NULL;
  g_assert_true (g_file_get_contents (cpu_src, &cpu_text, NULL, &error));
  g_autofree char *cpu_path = g_build_filename (dir, "cpu.json", NULL);
  g_assert_true (g_file_set_contents (cpu_path, cpu_text, -1, &error));
  run_tandem ("predict --cluster {TMP}/cpu.json --model tiny-llama --gpus 1 --gbs 4 "
              "--seq-length 256 --no-db", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.err, "no part tandem knows"));
  run_result_clear (&r);
  remove_tree (dir);
}

/* A stack that lays ranks out one way only takes that layout when the plan names none:
 * Meta's stack is [TP, CP, PP, DP] (the Llama 3 paper, Sec. 3.3.2), so Table 4's plan
 * predicts under --framework meta-llama3 without --rank-order, with the step time of the
 * same plan with --rank-order tp-cp-ep-pp-dp given; Megatron's order given explicitly is
 * refused (exit 2) naming the stack's. */
static void
test_stack_rank_order (void)
{
#define META "predict --model llama3-405b --cluster h100-24k --gpus 16384 --tp 8 --pp 16 " \
             "--vpp 8 --sequence-parallel --sharding zero2 --gbs 2048 --seq-length 8192 " \
             "--framework meta-llama3 --account-for-embedding-in-pipeline-split " \
             "--account-for-loss-in-pipeline-split --no-db"
  RunResult r = { 0 };
  run_tandem (META " --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) a = run_parse_json (r.out);
  double unset = json_object_get_double_member (json_node_get_object (a), "step_time_s");
  run_result_clear (&r);
  run_tandem (META " --rank-order tp-cp-ep-pp-dp --json", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) b = run_parse_json (r.out);
  g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (b), "step_time_s"),
                     ==, unset);
  run_result_clear (&r);
  run_tandem (META " --rank-order tp-cp-ep-dp-pp", &r);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "tandem: error: --rank-order tp-cp-ep-dp-pp: the meta-llama3 "
                   "stack lays ranks out as tp-cp-ep-pp-dp (hint: --rank-order "
                   "tp-cp-ep-pp-dp)\n");
  run_result_clear (&r);
#undef META
}

/* A model whose config declares multi-token-prediction modules (GLM-4.5:
 * num_nextn_predict_layers 1) gets a note from predict and memory that the module is in
 * neither figure (the plan trains the main model, as Megatron-LM without
 * --mtp-num-layers). GLM-4.5's module, by hand: one MoE layer (attention 136,329,472,
 * router 160 x 5120 = 819,200 and its 160 biases, experts 160 x 3 x 5120 x 1536 =
 * 3,774,873,600, shared expert 3 x 5120 x 1536 = 23,592,960, norms 2 x 5120 = 10,240) =
 * 3,935,625,632, plus eh_proj 2h x h = 52,428,800 and three norms of h (enorm, hnorm,
 * the shared head's) 15,360: 3,988,069,792. A model without MTP (llama3-8b) has no note. */
static void
test_mtp_note (void)
{
  const char *plan = "--model {DATA}/models/glm-4.5.json --cluster h100-24k --gpus 640 "
                     "--tp 4 --pp 4 --ep 160 --etp 1 --sp --gbs 640 --seq 4096 "
                     "--decoder-first-pipeline-num-layers 20 "
                     "--decoder-last-pipeline-num-layers 24 --use-distributed-optimizer";
  const char *cmds[] = { "predict --no-db", "memory" };
  for (guint i = 0; i < G_N_ELEMENTS (cmds); i++)
    {
      RunResult r = { 0 };
      g_autofree char *args = g_strdup_printf ("%s %s", cmds[i], plan);
      run_tandem (args, &r);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_nonnull (strstr (r.out, "note: the 1 multi-token-prediction module of glm-4.5 "
                                "(3,988,069,792 parameters) is in neither the step time nor "
                                "the memory"));
      run_result_clear (&r);
    }
  /* with --mtp-num-layers 1 the module is trained, and predict says so */
  RunResult t = { 0 };
  g_autofree char *trained = g_strdup_printf ("predict --no-db %s --mtp-num-layers 1", plan);
  run_tandem (trained, &t);
  g_assert_cmpint (t.status, ==, 0);
  g_assert_nonnull (strstr (t.out, "note: the plan trains 1 multi-token-prediction module of "
                            "glm-4.5 on the last stage (--mtp-num-layers 1; 3,988,069,792 "
                            "parameters each): in the step time and the memory"));
  run_result_clear (&t);
  RunResult r = { 0 };
  run_tandem ("predict --no-db --model llama3-8b --cluster h100-24k --gpus 8 --tp 8", &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, "multi-token"));
  run_result_clear (&r);
}

/* validate --explain says how a row's MTP was read: row 711 (the 25.11 table's
 * 'DeepSeekV3 (w/ MTP)') trains its one module, row 701 ('w/o MTP') none. */
static void
test_explain_mtp (void)
{
  RunResult a = { 0 }, b = { 0 };
  run_tandem ("validate {SRC}/data/published-runs.csv --no-db --explain 711", &a);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_nonnull (strstr (a.out, "-> 1 module trained on the last stage (the moe cell's "
                            "mtp_layers=1: --mtp-num-layers 1)"));
  run_tandem ("validate {SRC}/data/published-runs.csv --no-db --explain 701", &b);
  g_assert_cmpint (b.status, ==, 0);
  g_assert_nonnull (strstr (b.out, "-> none trained (the moe cell's mtp_layers is 0 or absent"));
  run_result_clear (&a);
  run_result_clear (&b);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/predict-tasks-in-all", test_predict_tasks_in_all);
  g_test_add_func ("/cli/show/model-json", test_show_model_json);
  g_test_add_func ("/cli/predict/nemotron-h", test_nemotron_h);
  g_test_add_func ("/cli/show/cluster-json", test_show_cluster_json);
  g_test_add_func ("/cli/plan/show-json", test_plan_show_json);
  g_test_add_func ("/cli/plan/ddp-bucket-elements", test_ddp_bucket_elements);
  g_test_add_func ("/cli/predict/text-small-figures", test_predict_text_small_figures);
  g_test_add_func ("/cli/show/conventions-help", test_show_conventions_help);
  g_test_add_func ("/cli/show/framework-host-ops", test_show_framework_host_ops);
  g_test_add_func ("/cli/show/framework-fp8", test_show_framework_fp8);
  g_test_add_func ("/cli/show/framework-nccl", test_show_framework_nccl);
  g_test_add_func ("/cli/show/framework-grad-accum", test_show_framework_grad_accum);
  g_test_add_func ("/cli/predict/text-mfu-hfu", test_predict_text_mfu_hfu);
  g_test_add_func ("/cli/memory/json", test_memory_json);
  g_test_add_func ("/cli/memory/stack-dropout", test_memory_stack_dropout);
  g_test_add_func ("/cli/memory/moe-recompute-modules", test_memory_moe_recompute_modules);
  g_test_add_func ("/cli/memory/gpt-oss-recompute-modules", test_memory_gpt_oss_recompute_modules);
  g_test_add_func ("/cli/errors", test_errors);
  g_test_add_func ("/cli/hints-run", test_hints_run);
  g_test_add_func ("/cli/mxfp8-mi355x", test_mxfp8_mi355x);
  g_test_add_func ("/cli/errors/hint-command", test_hint_names_command);
  g_test_add_func ("/cli/errors/did-you-mean", test_did_you_mean);
  g_test_add_func ("/cli/errors/preset-names-any-case", test_preset_names_any_case);
  g_test_add_func ("/cli/plan/recompute-activations", test_recompute_activations);
  g_test_add_func ("/cli/plan-show-framework", test_plan_show_framework);
  g_test_add_func ("/cli/plan/show-dualpipe", test_plan_show_dualpipe);
  g_test_add_func ("/cli/plan/stack-defaults-adopted", test_stack_defaults_adopted);
  g_test_add_func ("/cli/memory/eager-swiglu", test_memory_eager_swiglu);
  g_test_add_func ("/cli/show/presets", test_show_presets);
  g_test_add_func ("/cli/predict/bubble-warning", test_predict_bubble_warning);
  g_test_add_func ("/cli/predict/untimed-offload-warning", test_untimed_offload_warning);
  g_test_add_func ("/cli/predict/stack-sharding-note", test_predict_stack_sharding_note);
  g_test_add_func ("/cli/predict/trace-store", test_predict_trace_store);
  g_test_add_func ("/cli/predict/oom", test_predict_oom);
  g_test_add_func ("/cli/predict/trace-escaped", test_trace_escaped);
  g_test_add_func ("/cli/predict/trace-gzip", test_trace_gzip);
  g_test_add_func ("/cli/predict/bad-db", test_predict_bad_db);
  g_test_add_func ("/cli/predict/moe-text", test_predict_moe_text);
  g_test_add_func ("/cli/predict/past-context", test_predict_past_context);
  g_test_add_func ("/cli/predict/cuda-graph-dense", test_predict_cuda_graph_dense);
  g_test_add_func ("/cli/a2a-overlap-needs-vpp", test_a2a_overlap_needs_vpp);
  g_test_add_func ("/cli/predict/precision-spellings", test_precision_spellings);
  g_test_add_func ("/cli/predict/hsdp-needs-stack", test_hsdp_needs_stack);
  g_test_add_func ("/cli/predict/grad-acc-fusion-needs-zero3", test_grad_acc_fusion_needs_zero3);
  g_test_add_func ("/cli/predict/tp-overlap-needs-stack", test_tp_overlap_needs_stack);
  g_test_add_func ("/cli/predict/accuracy", test_predict_accuracy);
  g_test_add_func ("/cli/predict/stragglers", test_predict_stragglers);
  g_test_add_func ("/cli/predict/device-part", test_predict_device_part);
  g_test_add_func ("/cli/predict/stack-rank-order", test_stack_rank_order);
  g_test_add_func ("/cli/predict/mtp-note", test_mtp_note);
  g_test_add_func ("/cli/validate/explain-mtp", test_explain_mtp);
  return g_test_run ();
}
