/* tests/results/test-published-moe.c - the `moe` column of data/published-runs.csv:
 * res_pub_moe_parse on good and bad cells (each refusal names its key), a bad cell
 * refusing its row in res_published_case_new, and the shipped MoE rows: every cell
 * parses, every row carries its source, at least 20 rows from at least 3 sources, and
 * the summary keeps them apart from the dense rows. */
#include <math.h>
#include <string.h>

#include <glib.h>

#include "results/published.h"
#include "shipped-csv.h"
#include "plan/memory.h"

/* DeepSeek-V3 as the shipped rows write it (Hugging Face config deepseek-ai/DeepSeek-V3:
 * n_routed_experts 256, num_experts_per_tok 8, moe_intermediate_size 2048, n_shared_experts
 * 1, first_k_dense_replace 3, intermediate_size 18432, q_lora_rank 1536, kv_lora_rank 512,
 * qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128). */
#define DSV3 "experts=256;top_k=8;shared_experts=1;moe_ffn=2048;shared_expert_ffn=2048;" \
             "dense_layers=3;dense_ffn=18432;attention=MLA(q_lora=1536,kv_lora=512," \
             "qk_nope=128,qk_rope=64,v_head=128);mtp_layers=1;etp=1;dispatcher=alltoall;" \
             "routing=forced"

static void
test_parse_good (void)
{
  ResPubMoe m;
  char *why = NULL;
  g_assert_true (res_pub_moe_parse (DSV3, &m, &why));
  g_assert_null (why);
  g_assert_true (m.present);
  g_assert_cmpuint (m.experts, ==, 256);
  g_assert_cmpuint (m.top_k, ==, 8);
  g_assert_cmpuint (m.moe_ffn, ==, 2048);
  g_assert_cmpuint (m.shared_experts, ==, 1);
  g_assert_cmpuint (m.shared_expert_ffn, ==, 2048);
  g_assert_cmpuint (m.dense_layers, ==, 3);
  g_assert_cmpuint (m.dense_ffn, ==, 18432);
  g_assert_true (m.mla);
  g_assert_cmpuint (m.q_lora, ==, 1536);
  g_assert_cmpuint (m.kv_lora, ==, 512);
  g_assert_cmpuint (m.qk_nope, ==, 128);
  g_assert_cmpuint (m.qk_rope, ==, 64);
  g_assert_cmpuint (m.v_head, ==, 128);
  g_assert_cmpuint (m.mtp_layers, ==, 1);
  g_assert_cmpuint (m.etp, ==, 1);
  g_assert_cmpint (m.dispatcher, ==, RES_PUB_DISPATCH_ALLTOALL);
  g_assert_cmpint (m.routing, ==, RES_PUB_ROUTING_FORCED);
  g_assert_null (m.attention_other);
  res_pub_moe_clear (&m);

  /* spaces around keys and values, a trailing ';', upper-case enum values; shared
   * experts without their ffn: shared x moe_ffn (2 x 1408 = 2816, Megatron-Core's
   * --moe-shared-expert-intermediate-size is the total) */
  g_assert_true (res_pub_moe_parse ("  experts = 64 ; top_k=6; moe_ffn=1408; shared_experts=2;"
                                    " dispatcher=DeepEP; capacity_factor=1.25; ", &m, &why));
  g_assert_cmpuint (m.experts, ==, 64);
  g_assert_cmpuint (m.top_k, ==, 6);
  g_assert_cmpuint (m.shared_expert_ffn, ==, 2 * 1408);
  g_assert_cmpint (m.dispatcher, ==, RES_PUB_DISPATCH_DEEPEP);
  g_assert_cmpfloat (m.capacity_factor, ==, 1.25);
  g_assert_false (m.pad_to_capacity);
  g_assert_false (m.mla);
  res_pub_moe_clear (&m);

  /* cuda_graph=: TE CUDA graph scopes joined by '+' (Megatron-Bridge's cuda_graph_scope
   * lists); the plan takes --cuda-graph-impl transformer_engine with those scopes, which
   * capture the router and preprocess but not the layer */
  g_assert_true (res_pub_moe_parse ("experts=128;top_k=8;moe_ffn=768;"
                                    "cuda_graph=attn+moe_router+moe_preprocess", &m, &why));
  g_assert_cmpuint (m.cuda_graph_scope, ==,
                    PLAN_CG_ATTN | PLAN_CG_MOE_ROUTER | PLAN_CG_MOE_PREPROCESS);
  {
    Plan p;
    plan_init_defaults (&p);
    res_pub_moe_plan (&m, 8, &p);
    g_assert_cmpint (p.cuda_graph_impl, ==, PLAN_CG_IMPL_TRANSFORMER_ENGINE);
    g_assert_true (plan_cuda_graph_moe_router (&p));
    g_assert_false (plan_cuda_graph_moe (&p));
    plan_clear (&p);
  }
  res_pub_moe_clear (&m);
  /* ... full_iteration alone: the local implementation's graph of the whole step
   * (Megatron-Bridge's later recipes; refused before, where the refusal of "full" hinted
   * at it), which takes the MoE layer's host work too; "full", Megatron-LM's older name:
   * Transformer Engine graphs of each whole layer (the plan's default scope) */
  static const struct { const char *cell; PlanCudaGraphImpl impl; guint scope; } cg[] = {
    { "cuda_graph=full_iteration", PLAN_CG_IMPL_LOCAL, PLAN_CG_FULL_ITERATION },
    { "cuda_graph=full", PLAN_CG_IMPL_TRANSFORMER_ENGINE, 0 },
    { "cuda_graph=none", PLAN_CG_IMPL_NONE, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cg); i++)
    {
      g_autofree char *cell = g_strconcat ("experts=128;top_k=8;moe_ffn=768;", cg[i].cell,
                                           NULL);
      g_assert_true (res_pub_moe_parse (cell, &m, &why));
      Plan p;
      plan_init_defaults (&p);
      res_pub_moe_plan (&m, 8, &p);
      g_assert_cmpint (p.cuda_graph_impl, ==, cg[i].impl);
      g_assert_cmpuint (p.cuda_graph_scope, ==, cg[i].scope);
      g_assert_true (plan_cuda_graph_moe (&p) == (cg[i].impl != PLAN_CG_IMPL_NONE));
      plan_clear (&p);
      res_pub_moe_clear (&m);
    }

  /* token drop and pad (the NeMo tables' "tokendrop" rows: capacity factor 1, padded,
   * Megatron-Bridge apply_moe_token_drop): the plan pads, the dispatcher takes no sync */
  g_assert_true (res_pub_moe_parse ("experts=128;top_k=8;moe_ffn=768;capacity_factor=1;pad=1",
                                    &m, &why));
  g_assert_true (m.pad_to_capacity);
  Plan pp;
  plan_init_defaults (&pp);
  res_pub_moe_plan (&m, 8, &pp);
  g_assert_true (pp.moe_pad_to_capacity);
  g_assert_cmpfloat (pp.moe_capacity_factor, ==, 1.0);
  plan_clear (&pp);
  g_autofree char *desc = res_pub_moe_describe (&m);
  g_assert_nonnull (strstr (desc, ", capacity factor 1 padded (no host sync)"));
  res_pub_moe_clear (&m);

  /* the overlap and CUDA-graph fields move the prediction, so the description names
   * them (rows 722, 826) */
  g_assert_true (res_pub_moe_parse ("experts=128;top_k=8;moe_ffn=768;a2a_overlap=1f1b;"
                                    "cuda_graph=moe_router+moe_preprocess", &m, &why));
  g_autofree char *desc2 = res_pub_moe_describe (&m);
  g_assert_nonnull (strstr (desc2, ", EP all-to-all overlapped (1F1B), CUDA graphs "
                                   "(moe_router,moe_preprocess)"));
  res_pub_moe_clear (&m);

  /* Qwen3-Next's hybrid: the layer counts, the head geometry at Qwen3NextConfig's
   * defaults unless given */
  g_assert_true (res_pub_moe_parse ("experts=512;top_k=10;moe_ffn=512;"
                                    "attention=GDN-hybrid(linear=36,full=12)", &m, &why));
  g_assert_null (m.attention_other);
  g_assert_cmpuint (m.gdn_linear, ==, 36);
  g_assert_cmpuint (m.gdn_full, ==, 12);
  g_assert_cmpuint (m.gdn_k_heads, ==, 16);
  g_assert_cmpuint (m.gdn_v_heads, ==, 32);
  g_assert_cmpuint (m.gdn_k_dim, ==, 128);
  g_assert_cmpuint (m.gdn_v_dim, ==, 128);
  g_assert_cmpuint (m.gdn_conv, ==, 4);
  res_pub_moe_clear (&m);
  g_assert_true (res_pub_moe_parse ("experts=8;top_k=2;moe_ffn=64;attention=GDN-hybrid("
                                    "linear=6, full=2, v_heads=8, k_heads=4, k_dim=64)", &m,
                                    &why));
  g_assert_cmpuint (m.gdn_v_heads, ==, 8);
  g_assert_cmpuint (m.gdn_k_heads, ==, 4);
  g_assert_cmpuint (m.gdn_k_dim, ==, 64);
  g_assert_cmpuint (m.gdn_v_dim, ==, 128);
  res_pub_moe_clear (&m);

  /* another attention kind is kept by name: the mapper skips it as not modelled */
  g_assert_true (res_pub_moe_parse ("experts=512;top_k=10;moe_ffn=512;"
                                    "attention=NSA(block=64)", &m, &why));
  g_assert_cmpstr (m.attention_other, ==, "NSA(block=64)");
  res_pub_moe_clear (&m);

  /* gpt-oss's biases: bias=1 */
  g_assert_true (res_pub_moe_parse ("experts=128;top_k=4;moe_ffn=2880;bias=1", &m, &why));
  g_assert_true (m.bias);
  res_pub_moe_clear (&m);
  g_assert_true (res_pub_moe_parse ("experts=128;top_k=4;moe_ffn=2880;bias=0", &m, &why));
  g_assert_false (m.bias);
  res_pub_moe_clear (&m);
  /* gpt-oss's activation clamp: glu_limit=7 (GptOssConfig swiglu_limit); absent 0 */
  g_assert_true (res_pub_moe_parse ("experts=128;top_k=4;moe_ffn=2880;glu_limit=7", &m, &why));
  g_assert_cmpfloat (m.glu_limit, ==, 7.0);
  res_pub_moe_clear (&m);
  g_assert_true (res_pub_moe_parse ("experts=128;top_k=4;moe_ffn=2880", &m, &why));
  g_assert_cmpfloat (m.glu_limit, ==, 0.0);
  res_pub_moe_clear (&m);

  /* the frameworks' own key names read as the cell's (Megatron-Core's config, Hugging
   * Face Llama4TextConfig's interleave_moe_layer_step) */
  g_assert_true (res_pub_moe_parse ("experts=128;top_k=1;moe_ffn=8192;"
                                    "expert_tensor_parallel_size=1;interleave_moe_layer_step=2;"
                                    "moe_expert_capacity_factor=1.25;"
                                    "moe_pad_expert_input_to_capacity=True;"
                                    "moe_router_force_load_balancing=True", &m, &why));
  g_assert_cmpuint (m.etp, ==, 1);
  g_assert_cmpuint (m.moe_every, ==, 2);
  g_assert_cmpfloat (m.capacity_factor, ==, 1.25);
  g_assert_true (m.pad_to_capacity);
  g_assert_cmpint (m.routing, ==, RES_PUB_ROUTING_FORCED);
  res_pub_moe_clear (&m);
  g_assert_true (res_pub_moe_parse ("experts=8;top_k=2;moe_ffn=64;moe_every=2;"
                                    "moe_router_force_load_balancing=False", &m, &why));
  g_assert_cmpuint (m.moe_every, ==, 2);
  g_assert_cmpint (m.routing, ==, RES_PUB_ROUTING_UNSTATED);
  g_assert_true (m.forced_off);
  g_autofree char *desc3 = res_pub_moe_describe (&m);
  g_assert_nonnull (strstr (desc3, ", MoE every 2 layers (the others dense)"));
  res_pub_moe_clear (&m);

  /* a pair that says the routing in words, as the tables write it: forced balance,
   * token drop at NeMo's defaults (capacity 1, padded) or a stated factor, dropless */
  static const struct { const char *flag; ResPubRouting routing; double cf; gboolean pad, off,
                        no_drop; } flags[] = {
    { "force load balancing", RES_PUB_ROUTING_FORCED, 0, FALSE, FALSE, FALSE },
    { "--moe-router-force-load-balancing", RES_PUB_ROUTING_FORCED, 0, FALSE, FALSE, FALSE },
    { "force-balance", RES_PUB_ROUTING_FORCED, 0, FALSE, FALSE, FALSE },
    { "no force load balancing", RES_PUB_ROUTING_UNSTATED, 0, FALSE, TRUE, FALSE },
    { "(tokendrop)", RES_PUB_ROUTING_UNSTATED, 1.0, TRUE, FALSE, FALSE },
    { "tokendrop", RES_PUB_ROUTING_UNSTATED, 1.0, TRUE, FALSE, FALSE },
    { "token drop at capacity factor 1.5", RES_PUB_ROUTING_UNSTATED, 1.5, FALSE, FALSE, FALSE },
    { "token-dropless", RES_PUB_ROUTING_UNSTATED, 0, FALSE, FALSE, TRUE },
    { "dropless", RES_PUB_ROUTING_UNSTATED, 0, FALSE, FALSE, TRUE },
    { "force-balanced and token-dropless", RES_PUB_ROUTING_FORCED, 0, FALSE, FALSE, TRUE },
    { "force balance: no", RES_PUB_ROUTING_UNSTATED, 0, FALSE, TRUE, FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (flags); i++)
    {
      g_autofree char *cell = g_strdup_printf ("experts=8;top_k=2;moe_ffn=64;%s", flags[i].flag);
      if (!res_pub_moe_parse (cell, &m, &why))
        g_error ("'%s': %s", cell, why);
      if (m.routing != flags[i].routing || m.capacity_factor != flags[i].cf
          || m.pad_to_capacity != flags[i].pad || m.forced_off != flags[i].off
          || m.no_drop != flags[i].no_drop)
        g_error ("'%s': routing %d cf %g pad %d off %d no_drop %d", flags[i].flag, m.routing,
                 m.capacity_factor, m.pad_to_capacity, m.forced_off, m.no_drop);
      res_pub_moe_clear (&m);
    }

  /* empty or blank: a dense row */
  g_assert_true (res_pub_moe_parse ("   ", &m, &why));
  g_assert_false (m.present);
  g_assert_null (why);
}

static void
test_parse_bad (void)
{
  static const struct { const char *cell, *why; } bad[] = {
    { "experts=8;top_k=2", "moe: moe_ffn is required" },
    { "top_k=2;moe_ffn=14336", "moe: experts is required" },
    { "experts=8;moe_ffn=14336", "moe: top_k is required" },
    { "experts=8;top_k=9;moe_ffn=14336", "moe: top_k 9 exceeds the 8 experts" },
    { "experts=8;top_k=2;moe_ffn=14336;experts=16", "moe: experts given twice" },
    { "experts=8;top_k=2;moe_ffn=14336;topk=2", "moe: unknown key 'topk'" },
    { "experts=8;top_k=2;moe_ffn", "moe: 'moe_ffn' is not key=value" },
    { "experts=8;;top_k=2;moe_ffn=1", "moe: empty pair before ';' number 2" },
    { "experts=eight;top_k=2;moe_ffn=14336", "moe: experts 'eight' is not a whole number" },
    { "experts=8.5;top_k=2;moe_ffn=14336", "moe: experts '8.5' is not a whole number" },
    { "experts=-8;top_k=2;moe_ffn=14336", "moe: experts '-8' is not a whole number" },
    { "experts=0;top_k=2;moe_ffn=14336", "moe: experts 0 is outside 1..65536" },
    { "experts=99999999999999999999;top_k=2;moe_ffn=1", "moe: experts 99999999999999999999 "
                                                        "is outside 1..65536" },
    { "experts=8;top_k=2;moe_ffn=14336;shared_expert_ffn=4096",
      "moe: shared_expert_ffn without shared_experts" },
    { "experts=8;top_k=2;moe_ffn=1;dispatcher=nccl", "moe: dispatcher 'nccl' unknown" },
    { "experts=8;top_k=2;moe_ffn=1;cuda_graph=router", "moe: cuda_graph 'router': unknown" },
    { "experts=8;top_k=2;moe_ffn=1;cuda_graph=full_iteration+attn",
      "moe: cuda_graph 'full_iteration+attn': full_iteration is the local implementation's "
      "graph of the whole step and takes no other scope beside it" },
    { "experts=8;top_k=2;moe_ffn=1;routing=random", "moe: routing 'random' unknown" },
    { "experts=8;top_k=2;moe_ffn=1;capacity_factor=0", "moe: capacity_factor '0' must be" },
    { "experts=8;top_k=2;moe_ffn=1;capacity_factor=nan", "moe: capacity_factor 'nan' must be" },
    { "experts=8;top_k=2;moe_ffn=1;pad=1", "moe: pad=1 without capacity_factor" },
    { "experts=8;top_k=2;moe_ffn=1;capacity_factor=1;pad=2", "moe: pad 2 is outside 0..1" },
    /* a config's name of a key is the key: given twice either way; its value checked */
    { "experts=8;top_k=2;moe_ffn=1;etp=1;expert_tensor_parallel_size=1",
      "moe: etp given twice" },
    { "experts=8;top_k=2;moe_ffn=1;moe_every=2;interleave_moe_layer_step=2",
      "moe: moe_every given twice" },
    { "experts=8;top_k=2;moe_ffn=1;moe_every=0", "moe: moe_every 0 is outside 1..4096" },
    { "experts=8;top_k=2;moe_ffn=1;interleave_moe_layer_step=two",
      "moe: interleave_moe_layer_step 'two' is not a whole number" },
    { "experts=8;top_k=2;moe_ffn=1;moe_router_force_load_balancing=maybe",
      "moe: moe_router_force_load_balancing 'maybe' is not True or False" },
    { "experts=8;top_k=2;moe_ffn=1;moe_expert_capacity_factor=0",
      "moe: moe_expert_capacity_factor '0' must be" },
    { "experts=8;top_k=2;moe_ffn=1;moe_pad_expert_input_to_capacity=True",
      "moe: pad=1 without capacity_factor" },
    /* a flag repeats the key it sets; other words are still no key=value */
    { "experts=8;top_k=2;moe_ffn=1;routing=forced;force load balancing",
      "moe: routing given twice ('force load balancing')" },
    { "experts=8;top_k=2;moe_ffn=1;capacity_factor=1.5;(tokendrop)",
      "moe: capacity_factor given twice ('(tokendrop)')" },
    { "experts=8;top_k=2;moe_ffn=1;balanced", "moe: 'balanced' is not key=value" },
    /* token drop and dropless in one cell contradict (they were accepted, the token drop
     * read); so does a pair saying one both ways (it was "not key=value" or read on) */
    { "experts=8;top_k=2;moe_ffn=1;routing=dropless;token drop",
      "moe: token drop (capacity factor 1) and dropless routing contradict" },
    { "experts=8;top_k=2;moe_ffn=1;token drop;dropless",
      "moe: token drop (capacity factor 1) and dropless routing contradict" },
    { "experts=8;top_k=2;moe_ffn=1;token-dropless;(tokendrop)",
      "moe: token drop (capacity factor 1) and dropless routing contradict" },
    { "experts=8;top_k=2;moe_ffn=1;capacity_factor=1.25;routing=dropless",
      "moe: token drop (capacity factor 1.25) and dropless routing contradict" },
    { "experts=8;top_k=2;moe_ffn=1;dropless;moe_expert_capacity_factor=2",
      "moe: token drop (capacity factor 2) and dropless routing contradict" },
    { "experts=8;top_k=2;moe_ffn=1;token drop, dropless",
      "moe: 'token drop, dropless' says token drop and dropless: they contradict" },
    { "experts=8;top_k=2;moe_ffn=1;force balance, force balance: no",
      "moe: 'force balance, force balance: no' says forced balance and not: they contradict" },
    { "experts=8;top_k=2;moe_ffn=1;sliding_window=128",
      "moe: sliding_window without sliding_window_layers" },
    { "experts=8;top_k=2;moe_ffn=1;bias=2", "moe: bias 2 is outside 0..1" },
    { "experts=8;top_k=2;moe_ffn=1;glu_limit=0", "moe: glu_limit '0' must be a number above 0" },
    { "experts=8;top_k=2;moe_ffn=1;glu_limit=seven", "moe: glu_limit 'seven' must be" },
    { "experts=8;top_k=2;moe_ffn=1;attention=MLA", "moe: attention MLA needs its ranks" },
    { "experts=8;top_k=2;moe_ffn=1;attention=MLA(q_lora=1536,kv_lora=512",
      "moe: attention 'MLA(q_lora=1536,kv_lora=512' has no closing ')'" },
    { "experts=8;top_k=2;moe_ffn=1;attention=MLA(q_lora=1536,kv_lora=512,qk_nope=128,"
      "qk_rope=64)", "moe: attention MLA(...) lacks v_head" },
    { "experts=8;top_k=2;moe_ffn=1;attention=MLA(q_lora=1,kv_lora=1,qk_nope=1,qk_rope=1,"
      "v_head=1,rope=2)", "moe: attention MLA field 'rope' unknown" },
    { "experts=8;top_k=2;moe_ffn=1;attention=()", "moe: attention has no kind" },
    { "experts=8;top_k=2;moe_ffn=1;attention=GDN-hybrid",
      "moe: attention GDN-hybrid needs its layer counts" },
    { "experts=8;top_k=2;moe_ffn=1;attention=GDN-hybrid(linear=36)",
      "moe: attention GDN-hybrid(...) lacks full" },
    { "experts=8;top_k=2;moe_ffn=1;attention=GDN-hybrid(linear=3,full=1,state=2)",
      "moe: attention GDN-hybrid field 'state' unknown" },
    { "experts=8;top_k=2;moe_ffn=1;attention=GDN-hybrid(linear=3,full=0)",
      "moe: GDN-hybrid full 0 is outside 1..4096" },
    { "experts=8;top_k=2;moe_ffn=1;attention=GDN-hybrid(linear=3,full=1,k_heads=3)",
      "moe: attention GDN-hybrid k_heads 3 does not divide v_heads 32" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      ResPubMoe m;
      char *why = NULL;
      if (res_pub_moe_parse (bad[i].cell, &m, &why))
        g_error ("'%s' was accepted", bad[i].cell);
      g_assert_nonnull (why);
      if (!g_str_has_prefix (why, bad[i].why))
        g_error ("'%s': '%s', expected it to start with '%s'", bad[i].cell, why, bad[i].why);
      g_assert_false (m.present);   /* cleared */
      g_assert_null (m.attention_other);
      g_free (why);
    }
}

/* One row of a small MoE (Mixtral-like: 8 experts, top-2) on 8 H100s. */
static ResPublishedCase *
moe_row (const char *moe)
{
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,n_kv_heads,ffn_hidden,vocab,"
    "seq_len,tp,pp,ep,global_batch,step_time_s,moe\n"
    "5,Mixtral-like,H100-SXM-80GB,8,4,1024,16,8,3584,32000,2048,1,1,8,64,1.0,\"%s\"\n", moe);
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
  g_assert_nonnull (csv);
  return res_published_case_new (csv, 0);
}

static void
test_row_refused (void)
{
  g_autoptr (ResPublishedCase) c = moe_row ("experts=8;top_k=3;moe_ffn=3584;top_k=2");
  g_assert_false (c->ready);
  g_assert_cmpstr (c->skip_reason, ==, "refused: moe: top_k given twice");
  g_assert_false (c->moe.present);

  /* the same row with an empty cell is a dense model with ep 8: refused by the plan as
   * issue 16's bad inputs say (a dense model with --ep > 1) */
  g_autoptr (ResPublishedCase) d = moe_row ("");
  g_assert_false (d->ready);
  g_assert_false (d->moe.present);
  g_assert_nonnull (strstr (d->skip_reason, "expert parallelism needs a mixture-of-experts "
                            "model"));

  /* a kind of attention the model does not have: skipped with the reason, not refused */
  g_autoptr (ResPublishedCase) g = moe_row ("experts=8;top_k=2;moe_ffn=3584;"
                                            "attention=NSA(block=64)");
  g_assert_false (g->ready);
  g_assert_true (g->moe.present);
  g_assert_cmpstr (g->skip_reason, ==, "mixture of experts: attention "
                   "'NSA(block=64)' is not modelled (only standard attention, MLA and "
                   "GDN-hybrid)");

  /* bias=1 (gpt-oss): biases on q/k/v/o, the router and the experts. The row's 4 layers of
   * h 1024, 16 heads / 8 KV heads of 64, 8 experts of 3584: per layer q + 2 kv + h =
   * 1024 + 1024 + 1024 = 3072, the router's 8, each expert's 2 x 3584 + 1024 = 8192 x 8
   * = 65,536; 68,616 x 4 = 274,464 parameters more than without */
  g_autoptr (ResPublishedCase) nb = moe_row ("experts=8;top_k=2;moe_ffn=3584");
  g_autoptr (ResPublishedCase) wb = moe_row ("experts=8;top_k=2;moe_ffn=3584;bias=1");
  g_assert_true (nb->ready && wb->ready);
  g_assert_true (wb->model->attn_bias && wb->model->mlp_bias && wb->model->router_bias);
  g_assert_false (nb->model->attn_bias || nb->model->mlp_bias || nb->model->router_bias);
  ModelParams pn, pw;
  model_spec_params (nb->model, &pn);
  model_spec_params (wb->model, &pw);
  g_assert_cmpuint (pw.total - pn.total, ==, 274464);
  /* glu_limit reaches the row's model (the experts' activation, models/model.h) */
  g_autoptr (ResPublishedCase) gl = moe_row ("experts=8;top_k=2;moe_ffn=3584;glu_limit=7");
  g_assert_true (gl->ready);
  g_assert_cmpfloat (gl->model->glu_limit, ==, 7.0);
  g_assert_cmpfloat (nb->model->glu_limit, ==, 0.0);

  /* GDN-hybrid on the row's 4 layers: 3 GDN + 1 gated full-attention layer (interval 4) */
  g_autoptr (ResPublishedCase) q = moe_row ("experts=8;top_k=2;moe_ffn=3584;shared_experts=1;"
                                            "attention=GDN-hybrid(linear=3,full=1)");
  g_assert_true (q->ready);
  g_assert_true (model_spec_is_gdn (q->model));
  g_assert_cmpuint (q->model->full_attn_interval, ==, 4);
  g_assert_cmpuint (model_spec_n_linear_layers (q->model), ==, 3);
  g_assert_true (model_spec_layer_is_linear (q->model, 2));
  g_assert_false (model_spec_layer_is_linear (q->model, 3));
  g_assert_true (q->model->attn_output_gate);
  g_assert_true (q->model->shared_expert_gate);
  /* counts that are not the row's layers, or not a whole interval: refused */
  static const char *const wrong[] = { "linear=2,full=1", "linear=1,full=3" };
  for (gsize i = 0; i < G_N_ELEMENTS (wrong); i++)
    {
      g_autofree char *cell = g_strdup_printf ("experts=8;top_k=2;moe_ffn=3584;"
                                               "attention=GDN-hybrid(%s)", wrong[i]);
      g_autoptr (ResPublishedCase) w = moe_row (cell);
      g_assert_false (w->ready);
      g_assert_true (g_str_has_prefix (w->skip_reason, "refused: moe: GDN-hybrid linear"));
    }
}


/* A row with no moe cell (the shared CSV has no such column) whose model cell names a
 * shipped MoE preset of the row's shape: the preset's MoE fields as a cell would state
 * them (Hugging Face configs: Qwen/Qwen3-30B-A3B 128 experts top-8 of 768, head_dim 128
 * where 2048 / 32 = 64; deepseek-ai/DeepSeek-V3 256 top-8 of 2048, one shared of 2048,
 * first_k_dense_replace 3 of 18432, MLA ranks 1536 / 512; openai/gpt-oss-120b 128 top-4
 * of 2880, head_dim 64, 128-token windows on 18 of 36 layers, biases, swiglu_limit 7;
 * mistralai/Mixtral-8x7B-v0.1 8 top-2 of 14336). No MTP trained (Megatron's default),
 * dispatcher and routing left to the row's text. */
static void
test_from_preset (void)
{
  ResPubMoe m;
  g_assert_true (res_pub_moe_from_preset ("Qwen3-30B-A3B", 2048, 48, 32, &m));
  g_assert_true (m.present);
  g_assert_cmpstr (m.preset, ==, "qwen3-30b-a3b");
  g_assert_cmpuint (m.experts, ==, 128);
  g_assert_cmpuint (m.top_k, ==, 8);
  g_assert_cmpuint (m.moe_ffn, ==, 768);
  g_assert_cmpuint (m.head_dim, ==, 128);
  g_assert_cmpuint (m.shared_experts, ==, 0);
  g_assert_cmpint (m.dispatcher, ==, RES_PUB_DISPATCH_UNSTATED);
  g_assert_cmpint (m.routing, ==, RES_PUB_ROUTING_UNSTATED);
  res_pub_moe_clear (&m);

  g_assert_true (res_pub_moe_from_preset ("DeepSeek V3 (671B)", 7168, 61, 128, &m));
  g_assert_cmpstr (m.preset, ==, "deepseek-v3");
  g_assert_cmpuint (m.experts, ==, 256);
  g_assert_cmpuint (m.top_k, ==, 8);
  g_assert_cmpuint (m.moe_ffn, ==, 2048);
  g_assert_cmpuint (m.shared_experts, ==, 1);
  g_assert_cmpuint (m.shared_expert_ffn, ==, 2048);
  g_assert_cmpuint (m.dense_layers, ==, 3);
  g_assert_cmpuint (m.dense_ffn, ==, 18432);
  g_assert_true (m.mla);
  g_assert_cmpuint (m.q_lora, ==, 1536);
  g_assert_cmpuint (m.kv_lora, ==, 512);
  g_assert_cmpuint (m.mtp_layers, ==, 0);
  res_pub_moe_clear (&m);

  g_assert_true (res_pub_moe_from_preset ("gpt_oss_120b", 2880, 36, 64, &m));
  g_assert_cmpuint (m.experts, ==, 128);
  g_assert_cmpuint (m.top_k, ==, 4);
  g_assert_cmpuint (m.head_dim, ==, 64);
  g_assert_cmpuint (m.sliding_window, ==, 128);
  g_assert_cmpuint (m.sliding_window_layers, ==, 18);
  g_assert_true (m.bias);
  g_assert_cmpfloat (m.glu_limit, ==, 7.0);
  res_pub_moe_clear (&m);

  g_assert_true (res_pub_moe_from_preset ("Mixtral 8x7B", 4096, 32, 32, &m));
  g_assert_cmpuint (m.experts, ==, 8);
  g_assert_cmpuint (m.top_k, ==, 2);
  g_assert_cmpuint (m.moe_ffn, ==, 14336);
  res_pub_moe_clear (&m);

  /* not the preset's shape, not a preset's name, DeepSeek-V2-Lite (not the V2 preset),
   * a name inside a longer word: none */
  g_assert_false (res_pub_moe_from_preset ("Mixtral 8x7B", 4096, 30, 32, &m));
  g_assert_false (m.present);
  g_assert_false (res_pub_moe_from_preset ("Llama 3 70B", 8192, 80, 64, &m));
  g_assert_false (res_pub_moe_from_preset ("DeepSeek-V2-Lite", 2048, 27, 16, &m));
  g_assert_false (res_pub_moe_from_preset ("xdeepseek-v3", 7168, 61, 128, &m));
  g_assert_false (res_pub_moe_from_preset ("", 7168, 61, 128, &m));
  /* a model named as the comparison or a baseline's: Llama 3 8B has Mixtral 8x7B's
   * layers, hidden size and heads */
  g_assert_false (res_pub_moe_from_preset ("Llama 3 8B (baseline for the Mixtral 8x7B "
                                           "comparison)", 4096, 32, 32, &m));
  g_assert_false (res_pub_moe_from_preset ("Llama 3 8B (vs Mixtral 8x7B)", 4096, 32, 32, &m));

  /* end to end: a Qwen3-30B-A3B row at ep 8 without a moe column was a dense model,
   * refused for its ep; it is the preset's MoE, forced balance read from its notes */
  static const char text[] =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,n_kv_heads,ffn_hidden,vocab,"
    "seq_len,tp,pp,ep,global_batch,step_time_s,notes\n"
    "5,Qwen3-30B-A3B,H100-SXM-80GB,8,48,2048,32,4,6144,151936,4096,1,1,8,64,2.0,"
    "\"MoE benchmarks force-balance the token distribution among experts\"\n";
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
  g_assert_nonnull (csv);
  g_autoptr (ResPublishedCase) c = res_published_case_new (csv, 0);
  g_assert_true (c->ready);
  g_assert_true (c->moe.present);
  g_assert_cmpstr (c->moe.preset, ==, "qwen3-30b-a3b");
  g_assert_cmpint (c->moe.routing, ==, RES_PUB_ROUTING_FORCED);
  g_assert_cmpuint (c->model->n_experts, ==, 128);
  g_assert_cmpuint (c->model->moe_ffn, ==, 768);
  g_assert_cmpint (c->plan.ep, ==, 8);

  /* an expert TP the row leaves unstated: on Megatron-Bridge its MoE recipes' 1
   * (qwen3_moe.py _qwen3_moe_common, deepseek_v3.py), on Megatron-Core its default, the
   * TP degree (Qwen3-235B-A22B at tp 2, ep 8 on 256 H100s: 16 ranks a stage fold either) */
  static const struct { const char *fw; int etp; } etps[] = {
    { "NeMo Megatron-Bridge 25.11", 1 }, { "Megatron-Core 0.12", 2 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (etps); i++)
    {
      g_autofree char *t = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,n_kv_heads,ffn_hidden,vocab,"
        "seq_len,tp,pp,ep,sequence_parallel,global_batch,step_time_s,framework\n"
        "5,Qwen3-235B-A22B,H100-SXM-80GB,256,94,4096,64,4,12288,151936,4096,2,4,8,yes,512,"
        "20.0,%s\n", etps[i].fw);
      g_autoptr (ResCsv) ecsv = res_csv_parse (t, -1, "inline", NULL);
      g_autoptr (ResPublishedCase) e = res_published_case_new (ecsv, 0);
      if (!e->ready)
        g_error ("%s: %s", etps[i].fw, e->skip_reason);
      g_assert_cmpint (e->plan.etp > 0 ? e->plan.etp : e->plan.tp, ==, etps[i].etp);
    }

  /* GLM-4.5's 96 heads of 128 on a hidden of 5120 (not a multiple): the preset is the
   * model (it was skipped), at the row's sequence, not the preset's 131072 context */
  static const char glm[] =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,n_kv_heads,ffn_hidden,vocab,"
    "seq_len,tp,pp,ep,sequence_parallel,global_batch,step_time_s\n"
    "5,GLM-4.5,H100-SXM-80GB,256,92,5120,96,8,12288,151552,4096,2,4,16,yes,512,20.0\n";
  g_autoptr (ResCsv) gcsv = res_csv_parse (glm, -1, "inline", NULL);
  g_autoptr (ResPublishedCase) g = res_published_case_new (gcsv, 0);
  if (!g->ready)
    g_error ("%s", g->skip_reason);
  g_assert_cmpstr (g->moe.preset, ==, "glm-4.5");
  g_assert_cmpuint (g->model->head_dim, ==, 128);
  g_assert_cmpuint (g->model->n_experts, ==, 160);
  g_assert_cmpuint (g->model->max_positions, ==, 4096);

  /* GLM-4.5-Air (96 heads of 128 on a hidden of 4096) is its own preset, not GLM-4.5's
   * ("air" keeps the GLM-4.5 name off it): 128 experts, one dense layer; it was refused
   * for hidden % heads */
  static const char air[] =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,n_kv_heads,ffn_hidden,vocab,"
    "seq_len,tp,pp,ep,global_batch,step_time_s\n"
    "6,GLM-4.5-Air,H100-SXM-80GB,64,46,4096,96,8,10944,151552,4096,1,2,8,512,20.0\n";
  g_autoptr (ResCsv) acsv = res_csv_parse (air, -1, "inline", NULL);
  g_autoptr (ResPublishedCase) a = res_published_case_new (acsv, 0);
  if (!a->ready)
    g_error ("%s", a->skip_reason);
  g_assert_cmpstr (a->moe.preset, ==, "glm-4.5-air");
  g_assert_cmpuint (a->model->n_experts, ==, 128);
  g_assert_cmpuint (a->model->moe_ffn, ==, 1408);
  g_assert_cmpuint (a->model->first_dense_layers, ==, 1);
  g_assert_cmpuint (a->model->head_dim, ==, 128);

  /* an empty vocab cell of a row naming a shipped MoE preset takes the preset's vocabulary
   * (the model's own config; "missing vocab" before: Megatron-LM PR rows of 8 Dec); a
   * stated cell keeps its own; a dense row naming no preset stays skipped */
  static const char qv[] =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,n_kv_heads,vocab,seq_len,tp,pp,"
    "ep,global_batch,step_time_s\n"
    "7,Qwen3-235B-A22B,H100-SXM-80GB,256,94,4096,64,4,,4096,1,8,8,512,20.0\n"
    "8,Qwen3-235B-A22B,H100-SXM-80GB,256,94,4096,64,4,152064,4096,1,8,8,512,20.0\n"
    "9,GPT dense,H100-SXM-80GB,256,94,4096,64,4,,4096,1,8,1,512,20.0\n";
  g_autoptr (ResCsv) qcsv = res_csv_parse (qv, -1, "inline", NULL);
  g_autoptr (ResPublishedCase) q0 = res_published_case_new (qcsv, 0);
  if (!q0->ready)
    g_error ("%s", q0->skip_reason);
  g_assert_cmpuint (q0->model->vocab, ==, 151936);
  g_assert_cmpstr (q0->vocab_preset, ==, "qwen3-235b-a22b");
  g_autoptr (ResPublishedCase) q1 = res_published_case_new (qcsv, 1);
  g_assert_true (q1->ready);
  g_assert_cmpuint (q1->model->vocab, ==, 152064);
  g_assert_null (q1->vocab_preset);
  g_autoptr (ResPublishedCase) q2 = res_published_case_new (qcsv, 2);
  g_assert_false (q2->ready);
  g_assert_cmpstr (q2->skip_reason, ==, "missing vocab");
}

/* An MoE's shape in free text (no moe cell, no preset): the routed experts and the
 * top-k both stated, the expert width the text's or the row's ffn_hidden (Grok-1's
 * configs give ffn_hidden_size per expert, 32768), shared experts each of the expert
 * width (2 x 1408 = 2816) */
static void
test_arch_in_text (void)
{
  static const struct {
    const char *text;
    guint64 ffn, experts, top_k, moe_ffn, shared, shared_ffn, dense;
  } good[] = {
    { "64 layers, hidden 6144, ffn_hidden_size 32768 (per expert), 48 heads, 8 experts top-2",
      32768, 8, 2, 32768, 0, 0, 0 },
    { "MixtralConfig8x7B with 64 layers, 8 experts (Mixtral's top-2, SwiGLU)", 32768,
      8, 2, 32768, 0, 0, 0 },
    { "num_experts=64, moe_router_topk=6, moe_ffn_hidden_size=1408, 2 shared experts, "
      "first_k_dense_replace 1", 10944, 64, 6, 1408, 2, 2816, 1 },
    { "256 routed experts with 8 active experts per token; moe_intermediate_size 2048", 18432,
      256, 8, 2048, 0, 0, 0 },
    { "--num-experts 16 --moe-router-topk 4", 4096, 16, 4, 4096, 0, 0, 0 },
    { "128 experts, 4 experts per token", 2880, 128, 4, 2880, 0, 0, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      ResPubMoe m;
      if (!res_pub_moe_arch_in_text (good[i].text, good[i].ffn, &m))
        g_error ("'%s' was not read", good[i].text);
      g_assert_true (m.present);
      g_assert_cmpuint (m.experts, ==, good[i].experts);
      g_assert_cmpuint (m.top_k, ==, good[i].top_k);
      g_assert_cmpuint (m.moe_ffn, ==, good[i].moe_ffn);
      g_assert_cmpuint (m.shared_experts, ==, good[i].shared);
      g_assert_cmpuint (m.shared_expert_ffn, ==, good[i].shared_ffn);
      g_assert_cmpuint (m.dense_layers, ==, good[i].dense);
      res_pub_moe_clear (&m);
    }
  /* no top-k, no experts, two counts, negated, a "top 10" with no experts: none */
  static const char *const none[] = {
    "8 experts", "top-2 routing", "8 experts top-2 and 16 experts top-4",
    "no experts, top-2 of nothing", "the top 10 runs of the table", "",
    /* another model's shape, in a sentence about other runs */
    "Dense model. Unlike the MoE variant with 8 experts top-2, every token uses the MLP.",
    "Compared with Mixtral's 8 experts (top-2), this run is dense",
    /* people and evaluations, not layers (the regression audit's) */
    "Config picked from 12 experts' hand-tuned proposals; one of the top 10 by MFU.",
    "SFT mix labelled by 40 expert annotators; top-2 responses per prompt kept.",
    "Downstream eval: top-2 accuracy 71.3%, graded by 8 expert raters.",
    "Fedus et al. report 128 experts with top-1 routing for Switch-Base",
  };
  for (guint i = 0; i < G_N_ELEMENTS (none); i++)
    {
      ResPubMoe m;
      if (res_pub_moe_arch_in_text (none[i], 4096, &m))
        g_error ("'%s' was read as %" G_GUINT64_FORMAT " experts top-%" G_GUINT64_FORMAT,
                 none[i], m.experts, m.top_k);
      g_assert_false (m.present);
    }

  /* the dispatcher a text names: HybridEP before DeepEP, a config's type, not negated */
  g_assert_cmpint (res_pub_moe_dispatcher_in_text ("NeMo AutoModel (PyTorch FSDP2 + "
                                                   "Transformer Engine + DeepEP)"),
                   ==, RES_PUB_DISPATCH_DEEPEP);
  g_assert_cmpint (res_pub_moe_dispatcher_in_text ("DeepEP replaced by HybridEP"), ==,
                   RES_PUB_DISPATCH_HYBRIDEP);
  g_assert_cmpint (res_pub_moe_dispatcher_in_text ("moe_token_dispatcher_type: allgather"), ==,
                   RES_PUB_DISPATCH_ALLGATHER);
  g_assert_cmpint (res_pub_moe_dispatcher_in_text ("run without DeepEP"), ==,
                   RES_PUB_DISPATCH_UNSTATED);
  g_assert_cmpint (res_pub_moe_dispatcher_in_text ("deepepx"), ==, RES_PUB_DISPATCH_UNSTATED);

  /* the EP a text states for an empty ep cell; ETP, EDP and DeepEP are not it */
  static const struct { const char *text; gint64 ep; } eps[] = {
    { "EP 8, ETP 1", 8 }, { "TP1 EP64", 64 }, { "ep=16", 16 },
    { "--expert-model-parallel-size 32", 32 }, { "expert parallelism 4", 4 },
    { "ETP 2, EDP 32, DeepEP", 0 }, { "EP 8 here, EP 16 there", -1 }, { "", 0 },
    /* another run's (the regression audit's): a GPU count not the row's 256, a word of
     * other runs; "DEEP", "step", "epoch 8", "EPYC 9654" are no EP */
    { "The 1024-GPU production run used EP 16; for this row it was not reported.", 0 },
    { "EP 8 on these 256 GPUs", 8 }, { "unlike the baseline's EP 16", 0 },
    { "Timing at step 1200 of epoch 8 on the DEEP-Web mix; AMD EPYC 9654 hosts", 0 },
    /* a slash list's own value (count_after_labels read the list's first number: "TP/EP =
     * 2/8" was EP 2) */
    { "TP/EP = 2/8", 8 }, { "TP/PP/EP/CP/ETP = 2/8/32/1/1", 32 },
    /* ... not a list of label-number items, read after each label as before */
    { "Parallelism TP4/PP2/EP8 (NeMo recipe).", 8 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (eps); i++)
    if (res_pub_moe_ep_in_text (eps[i].text, 256) != eps[i].ep)
      g_error ("'%s': ep %" G_GINT64_FORMAT ", expected %" G_GINT64_FORMAT, eps[i].text,
               res_pub_moe_ep_in_text (eps[i].text, 256), eps[i].ep);

  /* end to end: a Grok-1 row with no moe cell and no preset, its shape in the notes */
  static const char text[] =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,n_kv_heads,ffn_hidden,vocab,"
    "seq_len,tp,pp,ep,global_batch,step_time_s,notes\n"
    "5,Grok-1 314B,H100-SXM-80GB,64,64,6144,48,8,32768,131072,8192,8,1,8,64,20.0,"
    "\"ffn_hidden_size 32768 per expert, 8 experts top-2; expert TP 1\"\n";
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
  g_assert_nonnull (csv);
  g_autoptr (ResPublishedCase) c = res_published_case_new (csv, 0);
  g_assert_true (c->moe.present);
  g_assert_null (c->moe.preset);
  g_assert_cmpstr (c->moe.arch_from, ==, "the notes");
  g_assert_cmpuint (c->model->n_experts, ==, 8);
  g_assert_cmpuint (c->model->moe_top_k, ==, 2);
  g_assert_cmpuint (c->moe.etp, ==, 1);

  /* ... and with its ep cell empty, the notes' "EP 8" (it was ep 1: every expert on every
   * rank) */
  static const char text2[] =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,n_kv_heads,ffn_hidden,vocab,"
    "seq_len,tp,pp,ep,global_batch,step_time_s,notes\n"
    "5,Grok-1 314B,H100-SXM-80GB,64,64,6144,48,8,32768,131072,8192,8,1,,64,20.0,"
    "\"8 experts top-2; EP 8, expert TP 1\"\n";
  g_autoptr (ResCsv) csv2 = res_csv_parse (text2, -1, "inline", NULL);
  g_autoptr (ResPublishedCase) c2 = res_published_case_new (csv2, 0);
  g_assert_true (c2->moe.present);
  g_assert_cmpstr (c2->moe.ep_from, ==, "the notes");
  g_assert_cmpint (c2->plan.ep, ==, 8);
}

/* The shipped MoE rows as the shared CSV would carry them, without the moe column: the
 * readers (the preset the model cell names, the shape in the notes, the notes' EP and
 * dispatcher) make at least 70 of the 78 MoE again (they were all dense and skipped
 * before: refused for their ep, or not dividing DeepSeek-V3's 61 layers), and no row is
 * read as a dense model with an ep. The 4 left are rows whose expert TP their text does
 * not give. */
static void
test_shipped_rows_without_moe_column (void)
{
  const char *root = g_getenv ("TANDEM_SOURCE_ROOT");
  g_assert_nonnull (root);
  g_autofree char *path = g_build_filename (root, "data", "published-runs.csv", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_autoptr (ResCsv) csv = shipped_csv ();
  /* the header's names, less moe (the header is plain: no quotes) */
  g_autofree char *first = g_strndup (text, strcspn (text, "\r\n"));
  g_auto (GStrv) names = g_strsplit (first, ",", -1);
  GString *out = g_string_new (NULL);
  gboolean lead = TRUE;
  for (guint j = 0; names[j] != NULL; j++)
    if (strcmp (names[j], "moe") != 0)
      {
        g_string_append_printf (out, "%s%s", lead ? "" : ",", names[j]);
        lead = FALSE;
      }
  g_string_append_c (out, '\n');
  guint n_moe = 0;
  for (guint r = 0; r < res_csv_n_rows (csv); r++)
    {
      if (res_csv_get (csv, r, "moe")[0] == '\0')
        continue;
      n_moe++;
      lead = TRUE;
      for (guint j = 0; names[j] != NULL; j++)
        {
          if (strcmp (names[j], "moe") == 0)
            continue;
          g_auto (GStrv) parts = g_strsplit (res_csv_get (csv, r, names[j]), "\"", -1);
          g_autofree char *quoted = g_strjoinv ("\"\"", parts);
          g_string_append_printf (out, "%s\"%s\"", lead ? "" : ",", quoted);
          lead = FALSE;
        }
      g_string_append_c (out, '\n');
    }
  g_autofree char *stripped = g_string_free (out, FALSE);
  g_autoptr (ResCsv) bare = res_csv_parse (stripped, -1, "stripped", NULL);
  g_assert_nonnull (bare);
  g_assert_cmpint (res_csv_column (bare, "moe"), <, 0);
  g_assert_cmpuint (res_csv_n_rows (bare), ==, n_moe);
  guint moe_ready = 0;
  for (guint r = 0; r < res_csv_n_rows (bare); r++)
    {
      g_autoptr (ResPublishedCase) c = res_published_case_new (bare, r);
      if (c->ready && c->moe.present)
        moe_ready++;
      /* never a dense model with its ep */
      g_assert_false (c->ready && !c->moe.present && c->plan.ep > 1);
    }
  g_test_message ("%u of %u MoE rows without their moe column read as MoE", moe_ready, n_moe);
  g_assert_cmpuint (moe_ready, >=, 70);
}

/* routing=tokendrop (the Megatron-Bridge tables' label) is token drop at NeMo's defaults,
 * capacity factor 1.0 padded, unless the cell states a factor; pad_to_capacity is pad */
static void
test_parse_tokendrop (void)
{
  ResPubMoe m;
  char *why = NULL;
  g_assert_true (res_pub_moe_parse ("experts=8;top_k=2;moe_ffn=1;routing=tokendrop", &m, &why));
  g_assert_cmpfloat (m.capacity_factor, ==, 1.0);
  g_assert_true (m.pad_to_capacity);
  res_pub_moe_clear (&m);
  g_assert_true (res_pub_moe_parse ("experts=8;top_k=2;moe_ffn=1;routing=tokendrop;"
                                    "capacity_factor=1.25", &m, &why));
  g_assert_cmpfloat (m.capacity_factor, ==, 1.25);
  g_assert_false (m.pad_to_capacity);
  res_pub_moe_clear (&m);
  g_assert_true (res_pub_moe_parse ("experts=8;top_k=2;moe_ffn=1;capacity_factor=1.0;"
                                    "pad_to_capacity=1", &m, &why));
  g_assert_true (m.pad_to_capacity);
  res_pub_moe_clear (&m);
  g_assert_false (res_pub_moe_parse ("experts=8;top_k=2;moe_ffn=1;routing=tokendrop;"
                                     "dropless", &m, &why));
  g_assert_true (g_str_has_prefix (why, "moe: routing=tokendrop and dropless contradict"));
  g_free (why);
}

/* One row of the small MoE on 8 H100s with the given tp, ep, model and notes cells. */
static ResPublishedCase *
moe_text_row (int tp, const char *ep, const char *model, const char *notes, const char *moe)
{
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,n_kv_heads,ffn_hidden,vocab,"
    "seq_len,tp,pp,ep,global_batch,step_time_s,notes,moe\n"
    "5,\"%s\",H100-SXM-80GB,8,4,1024,16,8,3584,32000,2048,%d,1,\"%s\",64,1.0,\"%s\",\"%s\"\n",
    model, tp, ep, notes, moe);
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
  g_assert_nonnull (csv);
  return res_published_case_new (csv, 0);
}

#define SMALL_MOE "experts=8;top_k=2;moe_ffn=3584"

/* Expert TP stated outside the moe cell (it was ignored: the plan took Megatron-Core's
 * default, the TP degree). TP 2 on 8 GPUs is dp 4, 8 ranks a stage: at the default etp 2,
 * 2 x ep 8 = 16 does not fold onto them; the ep cell's or the notes' etp 1 does. The moe
 * cell's etp wins where both are given (the cell is the row's MoE record; the other
 * figure is kept for --explain); an ep cell's wins over the notes'; notes that give two
 * sizes are no reading. Unstated, the skip names the etp that would fold beside the ep
 * hint, where it only contradicted the row's EP. */
static void
test_etp_outside_cell (void)
{
  static const struct { const char *ep, *notes; int etp; const char *from; } rows[] = {
    { "8 (expert TP 1)", "", 1, "the ep cell" },
    { "EP8, ETP1", "", 1, "the ep cell" },
    { "ep=8, etp=1", "", 1, "the ep cell" },
    { "8", "expert_tensor_parallel_size=1", 1, "the notes" },
    { "8", "the recipe sets expert_tensor_parallel_size = 1.", 1, "the notes" },
    { "8", "run with --expert-tensor-parallel-size 1 --sequence-parallel", 1, "the notes" },
    { "8", "TP 2, EP 8, ETP 1", 1, "the notes" },
    { "8", "expert tensor parallelism 1", 1, "the notes" },
    { "8 (expert TP 1)", "ETP 2", 1, "the ep cell" },
    /* the EP pair after the ETP one, or joined to it without a comma: the ep is the
     * number after "EP", not ETP's (these read as ep 1, the ETP applied beside it) */
    { "ETP1 EP8", "", 1, "the ep cell" },
    { "ETP 1, EP 8", "", 1, "the ep cell" },
    { "etp=1, ep=8", "", 1, "the ep cell" },
    { "EP8 ETP1", "", 1, "the ep cell" },
    { "EP 8 / ETP 1", "", 1, "the ep cell" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = moe_text_row (2, rows[i].ep, "M", rows[i].notes,
                                                     SMALL_MOE);
      if (!c->ready || c->plan.etp != rows[i].etp)
        g_error ("ep '%s' notes '%s': etp %d (%s)", rows[i].ep, rows[i].notes, c->plan.etp,
                 c->skip_reason ? c->skip_reason : "ready");
      g_assert_cmpint (c->plan.ep, ==, 8);
      g_assert_cmpstr (c->moe.etp_from, ==, rows[i].from);
    }
  /* the moe cell's etp wins; the text's other figure is kept */
  g_autoptr (ResPublishedCase) both = moe_text_row (2, "8", "M", "ETP 2", SMALL_MOE ";etp=1");
  g_assert_true (both->ready);
  g_assert_cmpint (both->plan.etp, ==, 1);
  g_assert_null (both->moe.etp_from);
  g_assert_cmpuint (both->moe.etp_other, ==, 2);
  /* "ETP x EP" (no size), two sizes, and nothing: not read; the default etp = tp 2 does
   * not fold the stated degrees, and the run happened, so the largest etp that does, 1,
   * said so (Megatron-Bridge's Qwen3-235B tables leave out the ETP 1 their recipes set:
   * an audit's two such rows were skipped) */
  g_autoptr (ResPublishedCase) none = moe_text_row (2, "8", "M", "", SMALL_MOE);
  g_assert_true (none->ready);
  g_assert_cmpuint (none->moe.etp, ==, 0);
  g_assert_cmpint (none->plan.etp, ==, 1);
  g_assert_nonnull (strstr (none->moe.etp_from, "does not fold"));
  /* a mention of the expert TP the readers could not size ("ETP is 2", "ETP=TP", two
   * sizes) may state the default that does not fold: skipped, with the hint */
  static const char *const unread[] = { "EDP = GPUs/(ETP x EP x PP)", "ETP 1 at 64 GPUs, "
                                        "ETP 2 at 128", "ETP is 2", "ETP=TP",
                                        "expert tensor parallelism of 2" };
  for (guint i = 0; i < G_N_ELEMENTS (unread); i++)
    {
      g_autoptr (ResPublishedCase) c = moe_text_row (2, "8", "M", unread[i], SMALL_MOE);
      g_assert_false (c->ready);
      g_assert_cmpuint (c->moe.etp, ==, 0);
      g_assert_cmpstr (c->skip_reason, ==, "the expert layout does not fold onto the ranks: "
                       "expert tp x ep = 2 x 8 = 16 does not divide the tp x cp x dp = 8 ranks "
                       "of a pipeline stage (hint: ep 4, or etp=1 in the moe cell: etp not "
                       "stated, so expert tp is Megatron-Core's default, the TP degree 2)");
    }
  /* tp 4, ep 4 on 8 GPUs (dp 2): 4 x 4 = 16 does not fold; etp 2 does (2 x 4 = 8) */
  g_autoptr (ResPublishedCase) t4 = moe_text_row (4, "4", "M", "", SMALL_MOE);
  g_assert_true (t4->ready);
  g_assert_cmpint (t4->plan.etp, ==, 2);
  /* a stated etp that does not fold keeps plan validation's own message */
  g_autoptr (ResPublishedCase) st = moe_text_row (2, "8", "M", "", SMALL_MOE ";etp=2");
  g_assert_false (st->ready);
  g_assert_null (strstr (st->skip_reason, "in the moe cell"));

  /* an ep cell giving only the ETP, or two EPs after it, states no EP: the default ep 1,
   * never the ETP's number */
  static const char *const no_ep[] = { "ETP 8", "ETP 8, EP 8 at 64 GPUs", "ETP 1, EP 8, EP 4" };
  for (guint i = 0; i < G_N_ELEMENTS (no_ep); i++)
    {
      g_autoptr (ResPublishedCase) c = moe_text_row (1, no_ep[i], "M", "", SMALL_MOE);
      if (c->plan.ep != 1)
        g_error ("ep '%s': ep %d", no_ep[i], c->plan.ep);
    }

  /* the readers alone */
  g_assert_cmpint (res_pub_moe_etp_in_text ("64 (expert TP 1)"), ==, 1);
  g_assert_cmpint (res_pub_moe_etp_in_text ("EP64, ETP1"), ==, 1);
  g_assert_cmpint (res_pub_moe_etp_in_text ("expert tensor parallel size: 4"), ==, 4);
  g_assert_cmpint (res_pub_moe_etp_in_text ("NETP 2"), ==, 0);
  g_assert_cmpint (res_pub_moe_etp_in_text ("ETP 1.5"), ==, 0);
  /* a slash list gives each label its own number (it read the list's first, 2: Megatron-LM's
   * MoE recipe index "TP/PP/EP/CP/ETP = 2/8/32/1/1", audit of 8 Dec); lists of unequal
   * length say nothing; two lists that disagree are no reading */
  g_assert_cmpint (res_pub_moe_etp_in_text ("TP/PP/EP/CP/ETP = 2/8/32/1/1"), ==, 1);
  g_assert_cmpint (res_pub_moe_etp_in_text ("layout EP/ETP: 8/2, mock data"), ==, 2);
  g_assert_cmpint (res_pub_moe_etp_in_text ("TP/PP/ETP = 2/8"), ==, 0);
  g_assert_cmpint (res_pub_moe_etp_in_text ("TP/ETP = 2/1; later TP/ETP = 2/2"), ==, -1);
  g_assert_cmpint (res_pub_moe_etp_in_text ("TP2/EP8/ETP1"), ==, 1);
  g_assert_cmpint (res_pub_moe_etp_in_text ("ETP 1, ETP 2"), ==, -1);
}

/* Forced balance and token drop stated in the model cell or the notes, where the moe
 * cell says neither (they were read only from routing= and capacity_factor=). Forced:
 * the imbalance 1.0 of routing=forced; token drop: capacity factor 1 padded (NeMo's
 * token-drop defaults) or the factor stated; negations read as said off; the moe cell's
 * routing=dropless keeps the notes' token drop out. */
static void
test_routing_outside_cell (void)
{
  g_autoptr (ResPublishedCase) base = moe_text_row (1, "8", "M", "", SMALL_MOE);
  g_assert_true (base->ready);
  g_assert_cmpfloat (base->plan.moe_imbalance, !=, 1.0);
  static const struct { const char *model, *notes; gboolean forced; double cf; gboolean pad;
                        const char *from; } rows[] = {
    { "M", "Table footnote: MoE benchmarks force-balance the token distribution among experts "
      "and are token-dropless.", TRUE, 0, FALSE, "the notes" },
    { "M", "force load balancing", TRUE, 0, FALSE, "the notes" },
    { "M", "flags: --moe-router-force-load-balancing --moe-permute-fusion", TRUE, 0, FALSE,
      "the notes" },
    { "M", "moe_router_force_load_balancing=True", TRUE, 0, FALSE, "the notes" },
    { "M (force load balancing)", "", TRUE, 0, FALSE, "the model cell" },
    { "M", "moe_router_force_load_balancing=False", FALSE, 0, FALSE, NULL },
    { "M", "without force load balancing", FALSE, 0, FALSE, NULL },
    { "M", "not force-balanced", FALSE, 0, FALSE, NULL },
    /* a noun naming one figure of two is not the run's */
    { "M", "TFLOPS '295 (forced balance) / 237 (dropless)'", FALSE, 0, FALSE, NULL },
    /* a value after the phrase that says no, false or off is off (": no" read on) */
    { "M", "force balance: no", FALSE, 0, FALSE, NULL },
    { "M (force balance: no)", "", FALSE, 0, FALSE, NULL },
    { "M", "force balance = no", FALSE, 0, FALSE, NULL },
    { "M", "Force-balanced: No.", FALSE, 0, FALSE, NULL },
    { "M", "force load balancing: false", FALSE, 0, FALSE, NULL },
    { "M", "force balance not used", FALSE, 0, FALSE, NULL },
    { "M", "force balance: yes", TRUE, 0, FALSE, "the notes" },
    { "M", "force balance: 1", TRUE, 0, FALSE, "the notes" },
    { "M", "force-balanced (no token drop)", TRUE, 0, FALSE, "the notes" },
    /* the verb or adjective as a table's label of one figure beside another, and prose
     * about other runs, are not the run's (they read forced) */
    { "M", "force balanced vs. dropless: 335 / 277", FALSE, 0, FALSE, NULL },
    { "M", "dropless vs. force balanced: 277 / 335", FALSE, 0, FALSE, NULL },
    { "M", "TFLOPS 295 (force-balanced) / 237 (dropless)", FALSE, 0, FALSE, NULL },
    { "M", "force balanced: 335, dropless: 277", FALSE, 0, FALSE, NULL },
    { "M", "comparisons with force-balanced baselines", FALSE, 0, FALSE, NULL },
    { "M", "3% faster than force-balanced runs", FALSE, 0, FALSE, NULL },
    { "M (tokendrop)", "", FALSE, 1.0, TRUE, "the model cell" },
    { "M", "token drop", FALSE, 1.0, TRUE, "the notes" },
    { "M", "token-dropping with capacity factor 1.25", FALSE, 1.25, FALSE, "the notes" },
    { "M", "token drop, moe_expert_capacity_factor=2.0, pad to capacity", FALSE, 2.0, TRUE,
      "the notes" },
    { "M", "MegatronTokenDropCallback (capacity factor 1.0, pad to capacity)", FALSE, 1.0,
      TRUE, "the notes" },
    { "M", "token-dropless", FALSE, 0, FALSE, NULL },
    { "M", "dropless routing", FALSE, 0, FALSE, NULL },
    { "M", "no token drop", FALSE, 0, FALSE, NULL },
    { "M", "without token dropping", FALSE, 0, FALSE, NULL },
    /* both said: no reading */
    { "M", "token drop in the first runs; the dropless runs after", FALSE, 0, FALSE, NULL },
    /* the run's own statement of token drop is read; prose about other runs, a noun it
     * qualifies and a table's label of one figure are not (they read token drop) */
    { "M", "with token dropping", FALSE, 1.0, TRUE, "the notes" },
    { "M", "trained with token dropping", FALSE, 1.0, TRUE, "the notes" },
    { "M", "Token drop is enabled.", FALSE, 1.0, TRUE, "the notes" },
    { "M", "USE_TOKEN_DROP=1", FALSE, 1.0, TRUE, "the notes" },
    { "M", "MoE layers use token dropping (capacity factor 1.25)", FALSE, 1.25, FALSE,
      "the notes" },
    { "Mixtral 8x7B token drop", "", FALSE, 1.0, TRUE, "the model cell" },
    { "M", "comparisons with token-drop baselines", FALSE, 0, FALSE, NULL },
    { "M", "token-drop baselines", FALSE, 0, FALSE, NULL },
    { "M", "token drop runs are 3% faster", FALSE, 0, FALSE, NULL },
    { "M", "unlike token-drop setups", FALSE, 0, FALSE, NULL },
    { "M", "token drop (baseline)", FALSE, 0, FALSE, NULL },
    { "M", "295 (tokendrop) / 237 (dropless)", FALSE, 0, FALSE, NULL },
    { "M", "token drop vs. dropless: 300 / 280", FALSE, 0, FALSE, NULL },
    { "M", "token drop: no", FALSE, 0, FALSE, NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = moe_text_row (1, "8", rows[i].model, rows[i].notes,
                                                     SMALL_MOE);
      if (!c->ready)
        g_error ("'%s' / '%s': %s", rows[i].model, rows[i].notes, c->skip_reason);
      gboolean forced = c->moe.routing == RES_PUB_ROUTING_FORCED;
      if (forced != rows[i].forced || c->plan.moe_capacity_factor != rows[i].cf
          || c->plan.moe_pad_to_capacity != rows[i].pad)
        g_error ("'%s' / '%s': forced %d cf %g pad %d", rows[i].model, rows[i].notes, forced,
                 c->plan.moe_capacity_factor, c->plan.moe_pad_to_capacity);
      g_assert_cmpfloat (c->plan.moe_imbalance, ==,
                         forced ? 1.0 : base->plan.moe_imbalance);
      g_assert_cmpstr (forced ? c->moe.routing_from : c->moe.drop_from, ==, rows[i].from);
    }
  /* the moe cell wins: dropless routing there keeps the notes' token drop out, a cell
   * factor stays, moe_router_force_load_balancing=False keeps the notes' forced out */
  g_autoptr (ResPublishedCase) dl = moe_text_row (1, "8", "M", "token drop",
                                                  SMALL_MOE ";routing=dropless");
  g_assert_cmpfloat (dl->plan.moe_capacity_factor, ==, 0);
  g_autoptr (ResPublishedCase) cf = moe_text_row (1, "8", "M", "token drop at capacity 2",
                                                  SMALL_MOE ";capacity_factor=1.5");
  g_assert_cmpfloat (cf->plan.moe_capacity_factor, ==, 1.5);
  g_assert_null (cf->moe.drop_from);
  g_autoptr (ResPublishedCase) off = moe_text_row (1, "8", "M", "force load balancing",
                                                   SMALL_MOE
                                                   ";moe_router_force_load_balancing=False");
  g_assert_cmpint (off->moe.routing, ==, RES_PUB_ROUTING_UNSTATED);
  /* --explain's moe line says where */
  g_autofree char *d = res_pub_moe_describe (&cf->moe);
  g_assert_null (strstr (d, "from the notes"));
  g_autoptr (ResPublishedCase) td = moe_text_row (1, "8", "M (tokendrop)", "", SMALL_MOE);
  g_autofree char *d2 = res_pub_moe_describe (&td->moe);
  g_assert_nonnull (strstr (d2, ", capacity factor 1 padded (no host sync) (token drop, from "
                                "the model cell)"));

  /* long texts are read in one pass: "force balance " 16,000 times over (224 KB) took 19 s
   * and "token drop " 8,000 times 4 s, each mention looking back to its clause's start;
   * a run of one word holding a mention every few chars, or pads each reading on to the
   * capacity at the clause's end, alike */
  {
    static const struct { const char *unit, *tail; int times, forced, drop; gboolean pad; }
    big[] = {
      { "force balance ", "", 16000, 1, -1, FALSE },
      { "force_balance_", "", 16000, 1, -1, FALSE },
      { "token drop with ", "", 8000, -1, 1, TRUE },
      { "pad ", "to capacity; token drop", 50000, -1, 1, TRUE },
      { "no force balance ", "", 8000, 0, -1, FALSE },
      { "token drop ", "", 8000, -1, 1, TRUE },
      { "comparisons with token-drop baselines ", "", 8000, -1, -1, FALSE },
    };
    for (guint i = 0; i < G_N_ELEMENTS (big); i++)
      {
        g_autoptr (GString) text = g_string_new (NULL);
        for (int k = 0; k < big[i].times; k++)
          g_string_append (text, big[i].unit);
        g_string_append (text, big[i].tail);
        double cf = 0;
        gboolean pad = FALSE;
        g_assert_cmpint (res_pub_moe_forced_in_text (text->str), ==, big[i].forced);
        g_assert_cmpint (res_pub_moe_token_drop_in_text (text->str, &cf, &pad), ==,
                         big[i].drop);
        if (big[i].drop == 1)
          {
            g_assert_cmpfloat (cf, ==, 1.0);
            g_assert_cmpint (pad, ==, big[i].pad);
          }
      }
    /* and through a row: the notes' forced balance read */
    g_autoptr (GString) notes = g_string_new (NULL);
    for (int k = 0; k < 16000; k++)
      g_string_append (notes, "force balance ");
    g_autoptr (ResPublishedCase) c = moe_text_row (1, "8", "M", notes->str, SMALL_MOE);
    g_assert_true (c->ready);
    g_assert_cmpint (c->moe.routing, ==, RES_PUB_ROUTING_FORCED);
  }
}

/* MoE in every N-th layer (moe_every=N, or Hugging Face's interleave_moe_layer_step): the
 * model's moe_layer_step (models/model.h), layer i MoE when (i - dense + 1) % N == 0. A
 * row of Llama 4 Maverick (Hugging Face meta-llama/Llama-4-Maverick-17B-128E text config:
 * 48 layers of 5120, 40 heads and 8 KV heads of 128, dense layers of 16384, 128 experts
 * of 8192 top-1 and one shared expert of 8192, vocab 202,048) builds 24 MoE layers and 24
 * dense ones, the llama4-maverick preset's 400,711,848,960 parameters; without the key,
 * 48 MoE layers (the dense MLP of 16384 nowhere). The model cell naming Maverick pulls no
 * preset: the row's cells describe its model. */
static void
test_moe_every (void)
{
  g_autoptr (ResPublishedCase) c = moe_text_row (1, "8", "M", "", SMALL_MOE ";moe_every=2");
  g_assert_true (c->ready);
  g_assert_cmpuint (c->model->moe_layer_step, ==, 2);
  g_assert_cmpuint (model_spec_n_moe_layers (c->model), ==, 2);
  g_assert_false (model_spec_layer_is_moe (c->model, 0));
  g_assert_true (model_spec_layer_is_moe (c->model, 1));
  PlanMoe pm;
  plan_moe (&c->plan, c->model, &pm);
  g_assert_cmpint (pm.layer_step, ==, 2);
  /* after dense_layers=1: layers 2 of 1..3 (step 2) */
  g_autoptr (ResPublishedCase) d = moe_text_row (1, "8", "M", "", SMALL_MOE
                                                 ";dense_layers=1;moe_every=2");
  g_assert_true (d->ready);
  g_assert_cmpuint (model_spec_n_moe_layers (d->model), ==, 1);
  g_assert_true (model_spec_layer_is_moe (d->model, 2));
  /* no MoE layer left: refused */
  g_autoptr (ResPublishedCase) n = moe_text_row (1, "8", "M", "", SMALL_MOE ";moe_every=5");
  g_assert_false (n->ready);
  g_assert_cmpstr (n->skip_reason, ==, "refused: moe: moe_every 5 leaves no MoE layer of the "
                   "4 after the 0 dense ones");
  g_assert_true (res_published_case_predict (c));

  const char *head = "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,n_kv_heads,"
                     "ffn_hidden,vocab,seq_len,tp,pp,ep,global_batch,step_time_s,moe\n";
  g_autoptr (ModelSpec) preset = model_spec_load_preset ("llama4-maverick", NULL);
  g_assert_nonnull (preset);
  ModelParams want, got;
  model_spec_params (preset, &want);
  for (int every = 1; every <= 2; every++)
    {
      g_autofree char *text = g_strdup_printf (
        "%s1,Llama 4 Maverick,H100-SXM-80GB,64,48,5120,40,8,16384,202048,8192,1,1,64,64,1.0,"
        "\"experts=128;top_k=1;moe_ffn=8192;shared_experts=1;head_dim=128%s\"\n", head,
        every == 2 ? ";interleave_moe_layer_step=2" : "");
      g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
      g_autoptr (ResPublishedCase) m = res_published_case_new (csv, 0);
      if (!m->ready)
        g_error ("maverick every %d: %s", every, m->skip_reason);
      g_assert_cmpuint (model_spec_n_moe_layers (m->model), ==, every == 2 ? 24 : 48);
      model_spec_params (m->model, &got);
      if (every == 2)
        g_assert_cmpuint (got.total, ==, want.total);
      else
        g_assert_cmpuint (got.total, >, want.total);
    }

  /* the interval from the notes, where the cell states none (an audit's DGX Cloud
   * Maverick row, "MoE in every second layer (interleave_moe_layer_step 2 ...)", was read
   * as every layer MoE: +48%); words only in a sentence that names MoE or experts */
  static const struct { const char *text; gint64 every; } texts[] = {
    { "Maverick: MoE in every second layer (interleave_moe_layer_step 2: 24 MoE layers)", 2 },
    { "interleave_moe_layer_step=2", 2 },
    { "--moe-layer-freq 4", 4 },
    { "experts in every other layer", 2 },
    { "alternating dense and MoE layers.", 2 },
    { "MoE every 4th layer", 4 },
    { "an MoE layer every 3 layers", 3 },
    { "recompute every other layer; MoE everywhere", 0 },   /* not about the MoE layers */
    { "moe_layer_freq 1", 0 },
    { "", 0 },
    /* a window on alternate layers is the attention's, in a sentence that names experts
     * and a file (gpt-oss on MI355X, Primus's gpt_oss_20B.yaml; it read MoE every 2
     * layers: audit of 7 Dec) */
    { "config gpt_oss_20B.yaml: 32 experts top-4, no shared expert, sliding window 128 on "
      "alternate layers (window_attn_skip_freq)", 0 },
    { "MoE on alternate layers, sliding window 128 on every layer", 2 },
    { "experts on alternate layers (v1.2 config)", 2 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    if (res_pub_moe_every_in_text (texts[i].text) != texts[i].every)
      g_error ("'%s': %" G_GINT64_FORMAT ", want %" G_GINT64_FORMAT, texts[i].text,
               res_pub_moe_every_in_text (texts[i].text), texts[i].every);
  g_autofree char *with_notes = NULL;
  {
    /* the Maverick row above with a notes column */
    const char *h2 = "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,n_kv_heads,"
                     "ffn_hidden,vocab,seq_len,tp,pp,ep,global_batch,step_time_s,moe,notes\n";
    with_notes = g_strdup_printf (
      "%s1,Llama 4 Maverick,H100-SXM-80GB,64,48,5120,40,8,16384,202048,8192,1,1,64,64,1.0,"
      "\"experts=128;top_k=1;moe_ffn=8192;shared_experts=1;head_dim=128\","
      "\"Maverick: MoE in every second layer (interleave_moe_layer_step 2)\"\n", h2);
  }
  g_autoptr (ResCsv) ncsv = res_csv_parse (with_notes, -1, "inline", NULL);
  g_autoptr (ResPublishedCase) nm = res_published_case_new (ncsv, 0);
  if (!nm->ready)
    g_error ("maverick from notes: %s", nm->skip_reason);
  g_assert_cmpuint (model_spec_n_moe_layers (nm->model), ==, 24);
  g_assert_cmpstr (nm->moe.every_from, ==, "the notes");
}


/* The shipped rows: every moe cell parses; every MoE row names its source and where in
 * it; at least 20 rows from at least 3 sources (issue 16 item 5); every row is predicted
 * or skipped with a reason; the summary counts them apart from the dense rows. */
static void
test_shipped_rows (void)
{
  g_autoptr (ResCsv) csv = shipped_csv ();
  g_assert_cmpint (res_csv_column (csv, "moe"), >=, 0);

  g_autoptr (GHashTable) sources = g_hash_table_new (g_str_hash, g_str_equal);
  guint n_moe = 0;
  for (guint r = 0; r < res_csv_n_rows (csv); r++)
    {
      ResPubMoe m;
      char *why = NULL;
      if (!res_pub_moe_parse (res_csv_get (csv, r, "moe"), &m, &why))
        g_error ("row %s: %s", res_csv_get (csv, r, "row_id"), why);
      if (!m.present)
        continue;
      n_moe++;
      g_assert_cmpuint (strlen (res_csv_get (csv, r, "source")), >, 0);
      g_assert_cmpuint (strlen (res_csv_get (csv, r, "source_location")), >, 0);
      g_hash_table_add (sources, (gpointer) res_csv_get (csv, r, "source"));
      res_pub_moe_clear (&m);
    }
  g_assert_cmpuint (n_moe, >=, 20);
  g_assert_cmpuint (g_hash_table_size (sources), >=, 3);

  g_autoptr (ResPublishedReport) rep = res_published_validate (csv, NULL);
  g_assert_cmpuint (rep->summary.n_moe_rows, ==, n_moe);
  guint predicted_moe = 0, dense = 0;
  for (guint i = 0; i < rep->cases->len; i++)
    {
      const ResPublishedCase *c = rep->cases->pdata[i];
      if (c->moe.present)
        {
          g_assert_true (c->predicted || c->skip_reason != NULL);
          g_assert_true (c->skip_reason == NULL
                         || !g_str_has_prefix (c->skip_reason, "refused: moe"));
          predicted_moe += c->predicted;
        }
      else if (!c->held_out)
        dense += c->predicted;
    }
  g_assert_cmpuint (rep->summary.n_moe, ==, predicted_moe);
  g_assert_cmpuint (rep->summary.n, ==, dense);   /* MAPE and families: dense rows only */
  g_test_message ("%u MoE rows from %u sources, %u predicted, MAPE %.1f%%", n_moe,
                  g_hash_table_size (sources), predicted_moe, rep->summary.mape_moe_pct);
}

/* DeepSeek-V3's 61 layers as the recipes lay them out (results/published-moe.h):
 * Megatron-Bridge layout_map (4, 2) = 8 chunks: [E + 8], 6 x [8], [5 + MTP + loss]
 * -> 8 + 48 + 5 = 61; (4, 4) = 16 chunks: [E + 4], 14 x [4], [1 + MTP + loss] -> 4 + 56
 * + 1 = 61; ModelZoo "Et|(tt|)*30mL" = 32 chunks: 1 + 30 x 2 + 0 = 61. */
static void
test_layer_split (void)
{
  int first = -1, last = -1;
  g_assert_true (res_pub_moe_layer_split (61, 8, &first, &last));
  g_assert_cmpint (first, ==, 8);
  g_assert_cmpint (last, ==, 5);
  g_assert_true (res_pub_moe_layer_split (61, 16, &first, &last));
  g_assert_cmpint (first, ==, 4);
  g_assert_cmpint (last, ==, 1);
  g_assert_true (res_pub_moe_layer_split (61, 32, &first, &last));
  g_assert_cmpint (first, ==, 1);
  g_assert_cmpint (last, ==, 0);
  /* 1 chunk, more chunks than layers: no split */
  g_assert_false (res_pub_moe_layer_split (61, 1, &first, &last));
  g_assert_false (res_pub_moe_layer_split (4, 8, &first, &last));
}

/* Megatron-Core's --recompute-modules (the MoE rows' recompute cells): the attention core
 * is recomputed only when core_attn is listed (tandem's "selective"); a list without it
 * (layernorm, moe_act: ModelZoo's Qwen3 rows) reads as no recompute. */
static ResPublishedCase *
recompute_row (const char *recompute)
{
  /* a quoted CSV field: each '"' of the cell doubled ('recompute_modules=["mlp"]') */
  g_auto (GStrv) parts = g_strsplit (recompute, "\"", -1);
  g_autofree char *cell = g_strjoinv ("\"\"", parts);
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "global_batch,step_time_s,recompute,moe\n"
    "1,GPT,H100-SXM-80GB,8,4,1024,16,32000,2048,1,1,16,1.0,\"%s\","
    "experts=8;top_k=2;moe_ffn=1024\n", cell);
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
  g_assert_nonnull (csv);
  return res_published_case_new (csv, 0);
}

static void
test_recompute_modules (void)
{
  static const struct { const char *cell; PlanRecompute want; guint moe; } rows[] = {
    { "selective (modules: layernorm, moe_act)", PLAN_RECOMPUTE_NONE,
      PLAN_MOE_RECOMPUTE_LAYERNORM | PLAN_MOE_RECOMPUTE_ACT },
    { "selective (modules: layernorm, moe)", PLAN_RECOMPUTE_NONE,
      PLAN_MOE_RECOMPUTE_LAYERNORM | PLAN_MOE_RECOMPUTE_LAYER },
    { "selective (modules: core_attn, layernorm)", PLAN_RECOMPUTE_SELECTIVE,
      PLAN_MOE_RECOMPUTE_LAYERNORM },
    { "selective (modules: mlp, shared_experts)", PLAN_RECOMPUTE_NONE,
      PLAN_MOE_RECOMPUTE_MLP | PLAN_MOE_RECOMPUTE_SHARED },
    { "selective", PLAN_RECOMPUTE_SELECTIVE, 0 },
    { "full", PLAN_RECOMPUTE_FULL, 0 },
    /* Megatron's flag as a run's command quotes it: the same modules (the first read as
     * none with no modules, the bare flags were refused as not recognised) */
    { "selective (--recompute-modules moe_act layernorm)", PLAN_RECOMPUTE_NONE,
      PLAN_MOE_RECOMPUTE_LAYERNORM | PLAN_MOE_RECOMPUTE_ACT },
    { "--recompute-modules mlp moe_act", PLAN_RECOMPUTE_NONE,
      PLAN_MOE_RECOMPUTE_MLP | PLAN_MOE_RECOMPUTE_ACT },
    { "--recompute-granularity selective --recompute-modules=layernorm,moe_act",
      PLAN_RECOMPUTE_NONE, PLAN_MOE_RECOMPUTE_LAYERNORM | PLAN_MOE_RECOMPUTE_ACT },
    /* after the flag, its module names up to the first word that is none: a trailing
     * '.', a bracket of prose, the flag said unused or at its default (each refused as
     * "'not' is not a Megatron-Core recompute module" and the like) */
    { "--recompute-modules layernorm moe_act.", PLAN_RECOMPUTE_NONE,
      PLAN_MOE_RECOMPUTE_LAYERNORM | PLAN_MOE_RECOMPUTE_ACT },
    { "--recompute-modules mlp moe_act (MoE layers only)", PLAN_RECOMPUTE_NONE,
      PLAN_MOE_RECOMPUTE_MLP | PLAN_MOE_RECOMPUTE_ACT },
    { "full (--recompute-granularity full --recompute-method uniform); --recompute-modules "
      "not used", PLAN_RECOMPUTE_FULL, 0 },
    { "none (--recompute-modules unset)", PLAN_RECOMPUTE_NONE, 0 },
    { "--recompute-modules mlp and layernorm", PLAN_RECOMPUTE_NONE,
      PLAN_MOE_RECOMPUTE_MLP | PLAN_MOE_RECOMPUTE_LAYERNORM },
    { "selective; recompute_modules default (core_attn)", PLAN_RECOMPUTE_SELECTIVE, 0 },
    /* the list as a Python or YAML list with quoted names (Megatron-Bridge's recipes), the
     * flag's list quoted for the shell, and two names joined by '&', '/' or '+': the same
     * modules. The first and third read as none with no modules, the second was refused
     * as "''core_attn'' is not a Megatron-Core recompute module" (its quotes kept), "mlp &
     * layernorm" read as mlp alone, "mlp/layernorm" and "mlp+layernorm" were not
     * recognised (nor read as modules) */
    { "selective, recompute_modules=[\"mlp\", \"layernorm\"]", PLAN_RECOMPUTE_NONE,
      PLAN_MOE_RECOMPUTE_MLP | PLAN_MOE_RECOMPUTE_LAYERNORM },
    { "selective; recompute_modules: ['core_attn', 'moe_act']", PLAN_RECOMPUTE_SELECTIVE,
      PLAN_MOE_RECOMPUTE_ACT },
    { "--recompute-granularity selective --recompute-modules \"mlp layernorm\"",
      PLAN_RECOMPUTE_NONE, PLAN_MOE_RECOMPUTE_MLP | PLAN_MOE_RECOMPUTE_LAYERNORM },
    { "--recompute-modules mlp & layernorm", PLAN_RECOMPUTE_NONE,
      PLAN_MOE_RECOMPUTE_MLP | PLAN_MOE_RECOMPUTE_LAYERNORM },
    { "--recompute-modules mlp/layernorm", PLAN_RECOMPUTE_NONE,
      PLAN_MOE_RECOMPUTE_MLP | PLAN_MOE_RECOMPUTE_LAYERNORM },
    { "--recompute-modules mlp+layernorm", PLAN_RECOMPUTE_NONE,
      PLAN_MOE_RECOMPUTE_MLP | PLAN_MOE_RECOMPUTE_LAYERNORM },
    { "selective (modules: 'layernorm', 'moe')", PLAN_RECOMPUTE_NONE,
      PLAN_MOE_RECOMPUTE_LAYERNORM | PLAN_MOE_RECOMPUTE_LAYER },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = recompute_row (rows[i].cell);
      g_assert_true (c->ready);
      if (c->plan.recompute != rows[i].want)
        g_error ("'%s': %s", rows[i].cell, plan_recompute_name (c->plan.recompute));
      g_assert_cmpuint (c->plan.moe_recompute, ==, rows[i].moe);
    }
  /* mla_up_proj on a model without multi-head latent attention (this row's GQA) names a
   * part it has not: the row is skipped with the reason plan validation gives */
  g_autoptr (ResPublishedCase) mla = recompute_row ("selective (modules: mla_up_proj, mlp)");
  g_assert_false (mla->ready);
  g_assert_nonnull (strstr (mla->skip_reason, "--recompute-modules mla_up_proj: 'GPT' has no "
                                              "multi-head latent attention"));
  /* "up_proj" in the flag is MLA's up-projection, mla_up_proj: the same skip on this
   * GQA model (it was dropped, the row read as no recompute) */
  g_autoptr (ResPublishedCase) up = recompute_row ("selective (--recompute-modules mlp up_proj)");
  g_assert_false (up->ready);
  g_assert_nonnull (strstr (up->skip_reason, "--recompute-modules mla_up_proj"));
  /* a name Megatron-Core does not have skips the row, naming it */
  g_autoptr (ResPublishedCase) bad = recompute_row ("selective (modules: layernorm, norms)");
  g_assert_false (bad->ready);
  g_assert_nonnull (strstr (bad->skip_reason, "'norms' is not a Megatron-Core recompute module"));
  /* ... named without the quotes a list put around it ("''norms''" before) */
  g_autoptr (ResPublishedCase) quoted = recompute_row ("selective; recompute_modules: "
                                                       "['layernorm', 'norms']");
  g_assert_false (quoted->ready);
  g_assert_nonnull (strstr (quoted->skip_reason, " 'norms' is not a Megatron-Core recompute "
                                                 "module"));
}

/* A DeepSeek-V3-shaped row (MLA: d_qk 128 + 64 = 192, d_v 128) on a Transformer Engine
 * stack: on Blackwell under a NeMo release before 25.07 its attention is TE's unfused
 * one (fused d_qk 192 / d_v 128 training on sm100 came with cuDNN 9.11 and TE 2.5, and
 * TE turns FlashAttention off for MLA), with the reason kept for --explain; from NeMo
 * 25.07, on Hopper, or where the row names FlashAttention, fused. */
static ResPublishedCase *
mla_row (const char *gpu, const char *framework, const char *notes)
{
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,ep,"
    "global_batch,step_time_s,framework,notes,moe\n"
    "1,DeepSeek-V3,%s,8,4,1024,16,32000,4096,1,1,8,16,1.0,\"%s\",\"%s\","
    "\"experts=8;top_k=2;moe_ffn=512;attention=MLA(q_lora=256,kv_lora=128,qk_nope=128,"
    "qk_rope=64,v_head=128)\"\n", gpu, framework, notes);
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
  g_assert_nonnull (csv);
  return res_published_case_new (csv, 0);
}

static void
test_mla_blackwell_unfused (void)
{
  static const struct { const char *gpu, *framework, *notes; gboolean unfused; } rows[] = {
    { "GB200 NVL72", "NeMo 25.04 (NeMo 2, Megatron-Core, Transformer Engine)", "", TRUE },
    { "B200-SXM-180GB", "NeMo 25.02", "", TRUE },
    { "GB200 NVL72", "NeMo 25.07", "", FALSE },
    { "GB200 NVL72", "NeMo Megatron-Bridge 25.11 (Megatron-Core)", "", FALSE },
    { "H100-SXM-80GB", "NeMo 25.04", "", FALSE },
    { "GB200 NVL72", "NeMo 25.04", "FlashAttention-3", FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = mla_row (rows[i].gpu, rows[i].framework, rows[i].notes);
      g_assert_true (c->ready);
      if ((c->plan.attention_backend == PLAN_ATTN_UNFUSED) != rows[i].unfused)
        g_error ("%s / %s: attention %s", rows[i].gpu, rows[i].framework,
                 plan_attn_backend_name (c->plan.attention_backend));
      if (rows[i].unfused)
        g_assert_nonnull (strstr (c->attn_why, "before TE 2.5 / cuDNN 9.11"));
      else
        g_assert_null (c->attn_why);
    }
}

/* "Adam moments in bf16" in a row's notes (the DeepSeek-V3 rows) keeps m and v at 2 bytes
 * each beside the 4-byte fp32 master weights: 8 bytes of optimizer state a parameter
 * instead of 12, the rest of the plan unchanged. The inline row: 8 GPUs, dp 8, ZeRO-1
 * (the MoE rows' distributed optimizer), so the optimizer category is 8/12 of the
 * default's. */
static void
test_adam_moments_bf16 (void)
{
  const char *head = "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
                     "global_batch,step_time_s,zero_stage_or_fsdp,notes,moe\n";
  const char *body[2] = { "", "Adam moments in bf16 (the recipe)" };
  guint64 opt[2];
  for (int k = 0; k < 2; k++)
    {
      g_autofree char *text = g_strdup_printf (
        "%s1,GPT,H100-SXM-80GB,8,4,1024,16,32000,2048,1,1,16,1.0,ZeRO-1,\"%s\","
        "experts=8;top_k=2;moe_ffn=1024\n", head, body[k]);
      g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
      g_assert_nonnull (csv);
      g_autoptr (ResPublishedCase) c = res_published_case_new (csv, 0);
      g_assert_true (c->ready);
      g_assert_cmpint (c->plan.optim_dtype, ==, k == 0 ? PLAN_PREC_FP32 : PLAN_PREC_BF16);
      PlanMemory m;
      plan_memory_compute (c->model, &c->plan, c->cluster, &m);
      opt[k] = m.stages[0].bytes[PLAN_MEM_OPTIMIZER];
      plan_memory_clear (&m);
    }
  g_assert_cmpuint (opt[0], >, 0);
  g_assert_cmpfloat (fabs ((double) opt[1] / (double) opt[0] - 8.0 / 12.0), <, 1e-6);
}

/* "bf16 parameters without fp32 master weights" in a row's notes (the NeMo AutoModel MoE
 * rows, 833-838) drops the 4-byte master copy and keeps Adam's m and v in bf16: 4 bytes of
 * optimizer state a parameter instead of 12. Row 836 (Qwen3-30B-A3B on 8 H100, dp 8,
 * ep 8) shards the same elements as row 709 (test_row_709_fits): dense 1,541,081,088 / 8
 * = 192,635,136 plus experts 3,623,878,656 over edp 1 = 3,816,513,792, so its optimizer
 * holds 4 x 3,816,513,792 = 15,266,055,168 B (45,798,165,504 with the master copy and fp32
 * moments), and the plan fits the H100's 80 GiB. */
static void
test_bf16_params_no_master (void)
{
  g_autoptr (ResCsv) csv = shipped_csv ();
  ResPublishedCase *c = NULL;
  for (guint r = 0; r < res_csv_n_rows (csv) && c == NULL; r++)
    if (g_str_equal (res_csv_get (csv, r, "row_id"), "836"))
      c = res_published_case_new (csv, r);
  g_assert_nonnull (c);
  g_assert_true (c->ready);
  g_assert_false (c->plan.master_weights);
  g_assert_cmpint (c->plan.optim_dtype, ==, PLAN_PREC_BF16);
  PlanMemory m;
  plan_memory_compute (c->model, &c->plan, c->cluster, &m);
  g_assert_cmpint (m.n_stages, ==, 1);
  g_assert_cmpuint (m.stages[0].bytes[PLAN_MEM_OPTIMIZER], ==, 15266055168ull);
  g_assert_true (m.fits);
  plan_memory_clear (&m);
  c->plan.master_weights = TRUE;
  c->plan.optim_dtype = PLAN_PREC_FP32;
  plan_memory_compute (c->model, &c->plan, c->cluster, &m);
  g_assert_cmpuint (m.stages[0].bytes[PLAN_MEM_OPTIMIZER], ==, 45798165504ull);
  plan_memory_clear (&m);
  res_published_case_free (c);
}

/* The 26.02 Qwen3-235B-A22B rows take the overlaps of the Megatron-Bridge presets whose sizes
 * match the table (scripts/performance/configs/qwen/qwen3_workload_base_configs.py at
 * f29a269): B300 (row 830: PP 8, VP 4, EP 8) and H100 (row 832: TP 2, PP 8, VP 4, EP 32) set
 * moe_a2a_overlap=True, B200 (row 831: PP 8, EP 8, no VP) sets False; the H100 config
 * (qwen3_llm_pretrain.py) builds CommOverlapConfig(tp_comm_overlap=False), so row 832, TP 2
 * with sequence parallel, runs without the nemo stack's default TP-comm overlap. */
static void
test_qwen3_235b_overlaps (void)
{
  g_autoptr (ResCsv) csv = shipped_csv ();
  static const struct { const char *id; gboolean a2a, tp; } want[] = {
    { "830", TRUE, FALSE }, { "831", FALSE, FALSE }, { "832", TRUE, FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      ResPublishedCase *c = NULL;
      for (guint r = 0; r < res_csv_n_rows (csv) && c == NULL; r++)
        if (g_str_equal (res_csv_get (csv, r, "row_id"), want[i].id))
          c = res_published_case_new (csv, r);
      g_assert_nonnull (c);
      g_assert_true (c->ready);
      if (c->plan.moe_a2a_overlap != want[i].a2a || c->plan.tp_comm_overlap != want[i].tp)
        g_error ("row %s: a2a overlap %d tp overlap %d, expected %d %d", want[i].id,
                 c->plan.moe_a2a_overlap, c->plan.tp_comm_overlap, want[i].a2a, want[i].tp);
      res_published_case_free (c);
    }
}

static const ResPublishedCase *
find_row (const ResPublishedReport *r, gint64 id)
{
  for (guint i = 0; i < r->cases->len; i++)
    if (((const ResPublishedCase *) r->cases->pdata[i])->row_id == id)
      return r->cases->pdata[i];
  g_error ("row %" G_GINT64_FORMAT " not in the CSV", id);
  return NULL;
}

/* The models the MoE rows build (res_pub_moe_apply) against the published counts:
 *  - Qwen3-235B-A22B (row 705): the Hugging Face checkpoint Qwen/Qwen3-235B-A22B holds
 *    235,093,634,560 parameters; a row has no column for Qwen3's q/k RMSNorms (2 x 128 per
 *    layer, 94 layers: 24,064), so 235,093,610,496 exactly; active: Qwen3 report "22B"
 *    (22.19B here: attention, norms, router and 8 of 128 experts of 3 x 4096 x 1536 per
 *    layer, plus both 151,936 x 4096 embeddings), within 1%.
 *  - DeepSeek-V3 (row 701): 671B main model (DeepSeek-V3 report; the checkpoint's 685B
 *    less the 14B multi-token-prediction module): 671,026,419,200 exactly; active 37B
 *    (report), within 2% (the report rounds down). Since MLA is costed as its own
 *    low-rank projections (plan/program-blocks.c), the row is predicted: its measured
 *    step, 4,096 sequences x 4,096 tokens / (256 GPUs x 3,848 tokens/s/GPU) = 17.031 s
 *    (Megatron-Bridge 25.11 summary, GB300), within the 15% MoE target (was +4.0%
 *    when first predicted).
 * And the plan the MoE row resolves to carries the model's experts, not its dense MLP:
 * expert_ffn is moe_ffn (1536), top-8 of 128, EP 16 as the row's ep column. */
static void
test_shipped_models (void)
{
  g_autoptr (ResCsv) csv = shipped_csv ();
  ResPublishedOptions opts = { 0 };
  gint64 ids[] = { 701, 705 };
  opts.only_ids = ids;
  opts.n_only_ids = G_N_ELEMENTS (ids);
  g_autoptr (ResPublishedReport) r = res_published_validate (csv, &opts);

  const ResPublishedCase *q = find_row (r, 705);
  g_assert_true (q->predicted);
  ModelParams p;
  model_spec_params (q->model, &p);
  g_assert_cmpuint (p.total, ==, G_GUINT64_CONSTANT (235093610496));
  g_assert_cmpfloat (fabs ((double) p.active / 22e9 - 1), <, 0.01);
  PlanMoe pm;
  plan_moe (&q->plan, q->model, &pm);
  g_assert_cmpint (pm.experts, ==, 128);
  g_assert_cmpint (pm.top_k, ==, 8);
  g_assert_cmpuint (pm.expert_ffn, ==, 1536);
  g_assert_cmpuint (pm.shared_ffn, ==, 0);
  g_assert_cmpint (q->plan.ep, ==, 16);
  g_assert_cmpfloat (pm.imbalance, ==, 1.0);   /* routing=forced */

  const ResPublishedCase *d = find_row (r, 701);
  g_assert_true (d->predicted);
  g_assert_cmpfloat (fabs (d->err_pct), <, 15.0);
  model_spec_params (d->model, &p);
  g_assert_cmpuint (p.total, ==, G_GUINT64_CONSTANT (671026419200));
  g_assert_cmpfloat (fabs ((double) p.active / 37e9 - 1), <, 0.02);
}

/* A MoE row with dense first layers and shared experts: the plan takes the model's
 * shared-expert width (2 x 512 = 1024) and first dense layers (1), and the dense MLP
 * (ffn_hidden 4096) is not the experts' (512). */
static void
test_plan_shape (void)
{
  g_autoptr (ResPublishedCase) c = moe_row ("experts=8;top_k=2;moe_ffn=512;shared_experts=2;"
                                            "dense_layers=1;dense_ffn=4096;etp=1;"
                                            "dispatcher=deepep");
  if (!c->ready)
    g_error ("%s", c->skip_reason);
  PlanMoe pm;
  plan_moe (&c->plan, c->model, &pm);
  g_assert_cmpint (pm.experts, ==, 8);
  g_assert_cmpint (pm.top_k, ==, 2);
  g_assert_cmpuint (pm.expert_ffn, ==, 512);
  g_assert_cmpuint (pm.shared_ffn, ==, 1024);
  g_assert_cmpint (pm.first_dense, ==, 1);
  g_assert_cmpuint (c->model->ffn_hidden, ==, 4096);
  g_assert_cmpint (c->plan.moe_dispatcher, ==, PLAN_MOE_FLEX);
  g_assert_cmpint (c->plan.ep, ==, 8);
  g_assert_true (res_published_case_predict (c));
  g_assert_true (c->predicted_exposed_s[PROG_COMM_EP] >= 0);
}

/* Row 709 ran (Megatron-Bridge 25.11, Qwen3-30B-A3B on 8 GB200, EP 8, MBS 4, seq 4096,
 * MXFP8, distributed optimizer, NeMo stack: bf16 gradient buffers), so its plan must fit
 * in the GB200's 186 GB. By hand, per rank (tp 1, pp 1, dp 8, ep 8, edp 1; 48 layers,
 * h 2048, 32 heads and 4 KV heads of 128, 128 experts of ffn 768, top-8, vocab 151,936,
 * untied embeddings):
 *   dense elements: 48 x (attention 2048 x 4096 + 2 x 2048 x 512 + 4096 x 2048 =
 *     18,874,368, router 2048 x 128 = 262,144, norms 4,096) = 918,749,184, embeddings
 *     2 x 151,936 x 2048 = 622,329,856, final norm 2,048: 1,541,081,088;
 *   expert elements: 48 x 128 / 8 x 3 x 2048 x 768 = 3,623,878,656; sum 5,164,959,744;
 *   params 2 B each = 10,329,919,488; grads (bf16) the same;
 *   optimizer 12 B (fp32 master, m, v): dense over dp 8 = 2,311,621,632, experts over
 *     edp 1 = 43,486,543,872: 45,798,165,504;
 *   activations, T = 4 x 4096 = 16,384 tokens, a = 2 B:
 *     attention part: norm input, MLP norm input, router input a T h each
 *       (3 x 67,108,864), the QKV input as TE's MXFP8 copy 1.03125 T h = 34,603,008, Q K V
 *       a T (4096 + 2 x 512) = 167,772,160, out-projection input (MXFP8 copy) 1.03125 T
 *       4096 = 69,206,016, the attention core's own bf16 output (its flash backward reads
 *       it; with FP8 GEMMs not the out-projection's copy) a T 4096 = 134,217,728,
 *       log-sum-exp 4 x 4 x 32 x 4096 = 2,097,152: 609,222,656;
 *     experts (forced balance: pace 1), X = T k = 131,072 copies, FP8 inputs saved as
 *       MXFP8 (1 + 1/32 B): fc1 input 1.03125 X h = 276,824,064, fc1 output (gate, up)
 *       2 a X 768 = 402,653,184, fc2 input 1.03125 X 768 = 103,809,024, router
 *       probabilities 4 T k = 524,288: 783,810,560 (the experts' outputs are not kept:
 *       Megatron-Core weights the copies in the activation);
 *     48 x 1,393,033,216 = 66,865,594,368, plus the last stage's final-norm and logits
 *       inputs 2 a T h = 134,217,728 and the logits Transformer Engine's cross entropy keeps
 *       (the Bridge runs' cross_entropy_fusion_impl "te"), bf16 a T V = 4,978,638,848,
 *       and the first stage's token ids 8 T = 131,072: 71,978,582,016;
 *   comm buffers: one overlapped gradient bucket, Megatron's 40M elements (--ddp-bucket-size)
 *     of bf16 gradient, 80,000,000 (160,000,000 before the bucket was counted in elements
 *     of the gradient dtype);
 *   reserve 5% of the 138,516,586,496 above + 1.5 GiB = 6,925,829,325 (rounded up) + 1,610,612,736
 *     = 8,536,442,061;
 *   total 147,053,028,557 B = 137.0 GiB of the GB200's 189,471 MiB (198,674,743,296 B, its
 *   nvidia-smi total): fits. (Before the core's bf16 output was counted: 65,536,131,072
 *   of activations, 130.7 GiB.) (With the native cross
 *   entropy's fp32 softmax 4 T V = 9,957,277,696: 70,514,769,920 B of activations,
 *   135.6 GiB.) (Before the dense GEMM inputs
 *   were counted as TE's FP8 copies: 75,195,613,184 B of activations, 140.2 GiB.) (Before the experts' outputs
 *   were dropped and FP8 inputs counted at 1 B, the experts held 1,678,245,888 B a layer
 *   and the plan needed 193 GiB: "OOM predicted".) */
static void
test_row_709_fits (void)
{
  g_autoptr (ResCsv) csv = shipped_csv ();
  ResPublishedCase *c = NULL;
  for (guint r = 0; r < res_csv_n_rows (csv) && c == NULL; r++)
    if (g_str_equal (res_csv_get (csv, r, "row_id"), "709"))
      c = res_published_case_new (csv, r);
  g_assert_nonnull (c);
  g_assert_true (c->ready);
  PlanMemory m;
  plan_memory_compute (c->model, &c->plan, c->cluster, &m);
  g_assert_cmpint (m.n_stages, ==, 1);
  const PlanMemStage *st = &m.stages[0];
  g_assert_cmpuint (st->bytes[PLAN_MEM_PARAMS], ==, 10329919488ull);
  g_assert_cmpuint (st->bytes[PLAN_MEM_GRADS], ==, 10329919488ull);
  g_assert_cmpuint (st->bytes[PLAN_MEM_OPTIMIZER], ==, 45798165504ull);
  g_assert_cmpuint (st->bytes[PLAN_MEM_ACTIVATIONS], ==, 71978582016ull);
  g_assert_cmpuint (st->bytes[PLAN_MEM_COMM_BUFFERS], ==, 80000000ull);
  g_assert_cmpuint (st->bytes[PLAN_MEM_RESERVE], ==, 8536442061ull);
  g_assert_cmpuint (st->total, ==, 147053028557ull);
  g_assert_cmpuint (m.capacity_bytes, ==, 198674743296ull);
  g_assert_true (m.fits);
  plan_memory_clear (&m);

  /* --recompute-modules moe_act: the fc2 input (103,809,024 B a layer) is recomputed,
   * 48 x 103,809,024 = 4,982,833,152 less than 71,978,582,016: 66,995,748,864; moe: the
   * whole MoE MLP (783,810,560 B a layer) is, 48 x 783,810,560 = 37,622,906,880 less:
   * 34,355,675,136 */
  Plan p = c->plan;
  g_assert_cmpuint (p.moe_recompute, ==, 0);
  p.moe_recompute = PLAN_MOE_RECOMPUTE_ACT;
  plan_memory_compute (c->model, &p, c->cluster, &m);
  g_assert_cmpuint (m.stages[0].bytes[PLAN_MEM_ACTIVATIONS], ==, 66995748864ull);
  plan_memory_clear (&m);
  p.moe_recompute = PLAN_MOE_RECOMPUTE_LAYER | PLAN_MOE_RECOMPUTE_ACT;
  plan_memory_compute (c->model, &p, c->cluster, &m);
  g_assert_cmpuint (m.stages[0].bytes[PLAN_MEM_ACTIVATIONS], ==, 34355675136ull);
  plan_memory_clear (&m);
  res_published_case_free (c);
}

/* The DeepSeek-V3 report's row (741) maps to the hai-llm stack, whose DualPipe overlaps
 * the EP all-to-all and the shared expert in every run: both overlaps on without the row
 * saying so, and the DualPipe schedule; a Megatron-Core row of the same model (707) keeps
 * them off (options there). */
static void
test_stack_overlaps (void)
{
  g_autoptr (ResCsv) csv = shipped_csv ();
  ResPublishedCase *hai = NULL, *mc = NULL;
  for (guint r = 0; r < res_csv_n_rows (csv); r++)
    {
      const char *id = res_csv_get (csv, r, "row_id");
      if (g_str_equal (id, "741"))
        hai = res_published_case_new (csv, r);
      else if (g_str_equal (id, "707"))
        mc = res_published_case_new (csv, r);
    }
  g_assert_nonnull (hai);
  g_assert_nonnull (mc);
  g_assert_cmpstr (hai->stack->name, ==, "hai-llm");
  g_assert_cmpint (hai->plan.ep, ==, 64);
  g_assert_true (hai->plan.moe_a2a_overlap);
  g_assert_true (hai->plan.moe_shared_expert_overlap);
  /* and its schedule is DualPipe (hai-llm.json defaults.pp_schedule): pp 16, vpp 1, 15,360
   * sequences over dp 128 = 120 micro-batches, even and at least 2 x 16; the Megatron-Core
   * row keeps 1F1B */
  g_assert_cmpint (hai->plan.schedule, ==, PLAN_SCHED_DUALPIPE);
  g_assert_cmpint (mc->plan.schedule, !=, PLAN_SCHED_DUALPIPE);
  g_assert_cmpstr (mc->stack->name, ==, "nemo");
  g_assert_false (mc->plan.moe_a2a_overlap);
  g_assert_false (mc->plan.moe_shared_expert_overlap);
  res_published_case_free (hai);
  res_published_case_free (mc);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/published-moe/parse-good", test_parse_good);
  g_test_add_func ("/published-moe/parse-bad", test_parse_bad);
  g_test_add_func ("/published-moe/row-refused", test_row_refused);
  g_test_add_func ("/published-moe/etp-outside-cell", test_etp_outside_cell);
  g_test_add_func ("/published-moe/routing-outside-cell", test_routing_outside_cell);
  g_test_add_func ("/published-moe/moe-every", test_moe_every);
  g_test_add_func ("/published-moe/layer-split", test_layer_split);
  g_test_add_func ("/published-moe/recompute-modules", test_recompute_modules);
  g_test_add_func ("/published-moe/mla-blackwell-unfused", test_mla_blackwell_unfused);
  g_test_add_func ("/published-moe/adam-moments-bf16", test_adam_moments_bf16);
  g_test_add_func ("/published-moe/bf16-params-no-master", test_bf16_params_no_master);
  g_test_add_func ("/published-moe/shipped-models", test_shipped_models);
  g_test_add_func ("/published-moe/from-preset", test_from_preset);
  g_test_add_func ("/published-moe/arch-in-text", test_arch_in_text);
  g_test_add_func ("/published-moe/shipped-rows-without-moe-column",
                   test_shipped_rows_without_moe_column);
  g_test_add_func ("/published-moe/parse-tokendrop", test_parse_tokendrop);
  g_test_add_func ("/published-moe/plan-shape", test_plan_shape);
  g_test_add_func ("/published-moe/row-709-fits", test_row_709_fits);
  g_test_add_func ("/published-moe/shipped-rows", test_shipped_rows);
  g_test_add_func ("/published-moe/qwen3-235b-overlaps", test_qwen3_235b_overlaps);
  g_test_add_func ("/published-moe/stack-overlaps", test_stack_overlaps);
  return g_test_run ();
}
