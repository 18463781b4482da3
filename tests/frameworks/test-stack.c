/* tests/frameworks/test-stack.c - software stacks: every preset loads with its sources,
 * bad stack files are refused with the field named, free text maps to the presets, and
 * the cost model reads the stack (FP8 recipe, attention class, fusion, kernel overhead). */
#include <math.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "frameworks/stack.h"
#include "sim/cost.h"

/* Every preset loads, names itself, and gives a source for each figure it sets. */
static void
test_presets (void)
{
  g_auto (GStrv) names = fw_stack_preset_names ();
  static const char *const want[] = { "deepspeed", "hai-llm", "llm-foundry", "maxtext",
                                      "megatron-core", "megatron-lm-2021", "meta-llama3", "nemo",
                                      "nemo-automodel", "pytorch-fsdp", "torchtitan" };
  g_assert_cmpuint (g_strv_length (names), ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      g_assert_cmpstr (names[i], ==, want[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (FwStack) s = fw_stack_lookup (names[i], &error);
      g_assert_no_error (error);
      g_assert_cmpstr (s->name, ==, want[i]);
      static const char *const sourced[] = { "attention", "kernel_overhead_us", "fsdp",
                                             "defaults" };
      for (guint k = 0; k < G_N_ELEMENTS (sourced); k++)
        if (g_hash_table_lookup (s->sources, sourced[k]) == NULL
            && !(g_str_equal (sourced[k], "fsdp") && g_str_equal (want[i], "nemo")))
          g_error ("preset %s: no source for %s", want[i], sourced[k]);
    }
  /* NULL and "" are the default stack */
  g_autoptr (FwStack) d = fw_stack_lookup (NULL, NULL);
  g_assert_cmpstr (d->name, ==, "megatron-core");
}

/* Megatron-LM before Megatron-Core (megatron-lm-2021), each field against the 2021-22
 * code its source names: sequence parallelism off unless a run asks (--sequence-parallel
 * is store_true, and absent before v3.0), scatter-gather pipeline sends on
 * (--no-scatter-gather-tensors-in-pipeline is store_false), the device synchronized after
 * every exchange of both schedules (_communicate's unconditional torch.cuda.synchronize),
 * materialized attention scores (FlashAttention reached Megatron-LM in 2023) with the
 * fused element-wise kernels, no TP-comm overlap, no sharding, and the local DDP's
 * all-reduce after the backward (not overlapped); the optimizer's bytes: fp32 grad-norm
 * read 4 + Adam 28 + the fp32 -> 16-bit copy back 4 + 2 = 38. Megatron-Core differs in
 * each of the first three. Every field set has its source. */
static void
test_megatron_lm_2021 (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (FwStack) s = fw_stack_lookup ("megatron-lm-2021", &error);
  g_assert_no_error (error);
  g_autoptr (FwStack) mc = fw_stack_lookup ("megatron-core", NULL);
  g_assert_false (s->default_sequence_parallel);
  g_assert_true (mc->default_sequence_parallel);
  g_assert_true (s->pp_scatter_gather);
  g_assert_false (mc->pp_scatter_gather);
  g_assert_cmpint (s->pp_p2p_sync, ==, FW_P2P_SYNC_EVERY);
  g_assert_cmpint (mc->pp_p2p_sync, ==, FW_P2P_SYNC_1F1B);
  g_assert_cmpint (s->attention, ==, FW_ATTN_UNFUSED);
  g_assert_cmpint (s->fusion, ==, FW_FUSION_FUSED);
  g_assert_cmpint (s->tp_comm_overlap, ==, FW_OPT_NO);
  g_assert_cmpint (s->async_tp, ==, FW_OPT_NO);
  g_assert_cmpint (s->fp8_ops, ==, FW_FP8_NONE);
  g_assert_cmpint (s->default_sharding, ==, FW_SHARD_NONE);
  g_assert_false (s->default_overlap_grad_reduce);
  g_assert_false (s->default_overlap_param_gather);
  g_assert_false (s->grad_reduce_bf16);
  g_assert_false (s->loss_eager);
  g_assert_cmpfloat (s->optimizer_bytes_per_param, ==, 4 + 28 + 4 + 2);
  static const char *const fields[] = { "attention", "fusion", "kernel_overhead_us",
                                        "pp_p2p_sync", "pp_scatter_gather", "tp_comm_overlap",
                                        "async_tp", "grad_reduce_dtype", "cross_entropy",
                                        "optimizer_bytes_per_param", "fp8", "defaults" };
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    if (g_hash_table_lookup (s->sources, fields[i]) == NULL)
      g_error ("megatron-lm-2021: no source for %s", fields[i]);
  /* the stack file's names round-trip through its JSON form */
  g_autoptr (JsonBuilder) b = json_builder_new ();
  fw_stack_to_json (s, b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "pp_p2p_sync"), ==, "every_exchange");
  g_assert_true (json_object_get_boolean_member (o, "pp_scatter_gather"));
  /* a bad value names the field and its choices' file */
  g_autoptr (GError) bad = NULL;
  g_autoptr (FwStack) nope = fw_stack_new_from_data (
    "{\"attention\": \"unfused\", \"fusion\": \"fused\", \"kernel_overhead_us\": 1, "
    "\"pp_p2p_sync\": \"always\"}", -1, "x.json", &bad);
  g_assert_null (nope);
  g_assert_nonnull (strstr (bad->message, "pp_p2p_sync"));
}

/* "dropout": llm-foundry's MPT model code leaves every dropout probability at 0
 * (MPTConfig defaults, the stack's source), so its rows store no masks; stacks that run
 * the model's own configuration keep the model's (GeLU GPT models carry dropout). The
 * name round-trips through the stack's JSON form. */
static void
test_dropout (void)
{
  g_autoptr (FwStack) lf = fw_stack_lookup ("llm-foundry", NULL);
  g_autoptr (FwStack) mc = fw_stack_lookup ("megatron-core", NULL);
  g_assert_nonnull (lf);
  g_assert_nonnull (mc);
  g_assert_true (lf->no_dropout);
  g_assert_false (mc->no_dropout);
  g_assert_nonnull (g_hash_table_lookup (lf->sources, "dropout"));
  g_autoptr (JsonBuilder) b = json_builder_new ();
  fw_stack_to_json (lf, b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (root), "dropout"), ==,
                   "none");
}

/* Semantics the issue names, read from the presets. */
static void
test_semantics (void)
{
  g_autoptr (FwStack) tt = fw_stack_lookup ("torchtitan", NULL);
  g_assert_cmpint (tt->attention, ==, FW_ATTN_FLASH2);
  g_assert_true (tt->fsdp_reshard_after_forward);
  g_assert_false (tt->fsdp_reshard_under_pp);          /* FSDP2 under PP keeps params */
  g_assert_cmpint (tt->fp8_ops, ==, FW_FP8_GEMM);      /* torchao: attention in bf16 */
  /* torchtitan's build_pipeline_schedule: pp x stages per rank micro-batches when unset;
   * every other preset keeps the plan default of one-sample micro-batches */
  g_assert_cmpint (tt->default_pp_microbatches, ==, FW_PP_MB_STAGES);
  /* torchao's Float8 TP gathers in fp8 (torchtitan docs/float8.md), and so does TE (its
   * LayerNormLinear gathers the FP8 norm output, its row-parallel backward the FP8
   * output gradient) */
  g_assert_true (tt->fp8_tp_all_gather);
  g_assert_true (tt->default_cp_allgather);   /* context_parallel_rotate_method */
  /* torchao's float8: torch._scaled_mm at the kernel rate, casts by operand, bf16 weights
   * cast in each forward (6 B per element), the output layer left in bf16; TE's stacks
   * keep the fitted rate and cast by operand too (the weight gradient reads the
   * transposed copies of TE's cast-transposes), without a per-forward weight cast; their
   * output layer is no TE module either (ColumnParallelLinear): bf16 */
  g_assert_true (tt->fp8_kernel_rate && tt->fp8_cast_per_operand && tt->fp8_output_bf16);
  g_assert_cmpfloat (tt->fp8_weight_cast_bytes, ==, 6.0);
  g_autoptr (FwStack) mcore = fw_stack_lookup ("megatron-core", NULL);
  g_assert_false (mcore->fp8_kernel_rate);
  g_assert_true (mcore->fp8_output_bf16);
  /* torchao enables cuBLASLt fast accumulation in the forward GEMM only; TE's stacks
   * are left at the default */
  g_assert_true (tt->fp8_fast_accum_fwd);
  g_assert_false (mcore->fp8_fast_accum_fwd);
  g_assert_true (mcore->fp8_cast_per_operand);
  g_assert_cmpfloat (mcore->fp8_weight_cast_bytes, ==, 0.0);
  g_autoptr (FwStack) nemo_fp8 = fw_stack_lookup ("nemo", NULL);
  g_assert_false (nemo_fp8->fp8_kernel_rate);
  g_assert_true (nemo_fp8->fp8_output_bf16);
  g_assert_true (nemo_fp8->fp8_cast_per_operand);
  /* NeMo 2's and Megatron-Bridge's delayed and current-scaling recipes set
   * fp8_param_gather = True; Megatron-LM's --fp8-param-gather is off unless passed */
  g_assert_true (nemo_fp8->fp8_param_gather);
  g_assert_false (mcore->fp8_param_gather);
  g_assert_false (tt->fp8_param_gather);
  /* XLA rewrites an FP8 dot_general with its scales into one cuBLASLt FP8 matmul
   * (__cublas$lt$matmul$f8), its casts fused (cast_passes 0): MaxText's GEMMs run at the
   * kernel rate, as torchao's torch._scaled_mm does */
  g_autoptr (FwStack) mx = fw_stack_lookup ("maxtext", NULL);
  g_assert_true (mx->fp8_kernel_rate);
  g_assert_cmpfloat (mx->fp8_cast_passes, ==, 0.0);
  /* jax.checkpoint keeps only what the policy names: MaxText/Pax; Megatron-Core keeps its
   * selective set */
  g_assert_true (mx->remat_named);
  g_assert_false (mcore->remat_named);
  /* torchtitan's loss is eager F.cross_entropy on fp32 logits; Megatron-Core's
   * vocab-parallel cross entropy writes its gradient in place */
  g_assert_true (tt->loss_eager);
  g_assert_false (mcore->loss_eager);
  /* the Llama 3 paper (Sec. 3.3.2) frees each pipeline stage's input after its forward;
   * the other presets keep it (the default), and the field round-trips with its source */
  g_autoptr (FwStack) ml3 = fw_stack_lookup ("meta-llama3", NULL);
  g_assert_true (ml3->pp_free_stage_input);
  g_assert_false (mcore->pp_free_stage_input || tt->pp_free_stage_input);
  g_assert_nonnull (g_hash_table_lookup (ml3->sources, "pp_stage_input"));
  /* torch.distributed.pipelining keeps each stage's output in fwd_cache until the unit's
   * backward (torchtitan); Megatron-Core frees a sent output, and Meta's stack says it does */
  g_assert_true (tt->pp_keep_stage_output);
  g_assert_false (mcore->pp_keep_stage_output || ml3->pp_keep_stage_output);
  g_assert_nonnull (g_hash_table_lookup (tt->sources, "pp_stage_output"));
  {
    g_autoptr (JsonBuilder) b = json_builder_new ();
    fw_stack_to_json (ml3, b);
    g_autoptr (JsonNode) root = json_builder_get_root (b);
    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (root), "pp_stage_input"),
                     ==, "freed");
  }
  g_autoptr (FwStack) nemo = fw_stack_lookup ("nemo", NULL);
  g_assert_cmpint (nemo->tp_comm_overlap, ==, FW_OPT_DEFAULT);
  g_assert_true (nemo->grad_reduce_bf16);
  g_autoptr (FwStack) ds = fw_stack_lookup ("deepspeed", NULL);
  g_assert_false (ds->default_sequence_parallel);
  g_assert_cmpint (ds->attention, ==, FW_ATTN_UNFUSED);
  /* DeepSpeed's documented stage3 defaults; FSDP stacks prefetch a layer, keep the
   * gathered layer from recompute to backward, one collective per layer */
  g_assert_cmpfloat (ds->fsdp_prefetch_params, ==, 5e7);
  g_assert_cmpfloat (ds->fsdp_max_reuse_params, ==, 1e9);
  g_assert_true (ds->fsdp_gather_per_tensor);
  g_assert_true (ds->fsdp_rank_copies);
  g_assert_false (tt->fsdp_rank_copies);
  g_assert_cmpfloat (tt->fsdp_prefetch_params, ==, 0);
  g_assert_cmpfloat (tt->fsdp_max_reuse_params, ==, 0);
  g_assert_false (tt->fsdp_gather_per_tensor);
  /* Megatron-FSDP issues the next layer's backward gather before this layer's gradient
   * reduce-scatter (its own all-gather stream, megatron_fsdp.py); NeMo runs it too;
   * DeepSpeed's stage-3 gathers stay at their own turn */
  g_assert_true (nemo->fsdp_gather_before_reduce);
  g_assert_false (ds->fsdp_gather_before_reduce);
  /* DeepSeek's HAI-LLM: DualPipe overlaps every EP all-to-all and the shared expert with
   * compute (DeepSeek-V3 report Sec. 3.2.1), where Megatron-Core offers both as options;
   * the report's framework name maps to it */
  g_autoptr (FwStack) hai = fw_stack_lookup ("hai-llm", NULL);
  g_assert_cmpint (hai->moe_a2a_overlap, ==, FW_OPT_DEFAULT);
  g_assert_cmpint (hai->moe_shared_expert_overlap, ==, FW_OPT_DEFAULT);
  g_assert_false (hai->default_sequence_parallel);
  g_assert_true (hai->default_pp_dualpipe);
  /* DeepSeek-V3 report Sec. 3.3.3: the MoE SwiGLU input cached in FP8, the attention
   * output in E5M6, the dispatch in FP8; Transformer Engine's stacks keep bf16 (the
   * SwiGLU input), the FP8 GEMM copy (the attention output) and bf16 tokens */
  g_assert_true (hai->fp8_moe_act_input);
  g_assert_true (hai->fp8_attn_out_e5m6);
  g_assert_true (hai->fp8_moe_dispatch);
  g_autoptr (FwStack) mc = fw_stack_lookup ("megatron-core", NULL);
  g_assert_cmpint (mc->moe_a2a_overlap, ==, FW_OPT_OPTIONAL);
  g_assert_false (mc->default_pp_dualpipe);
  g_assert_false (mc->fp8_moe_act_input || mc->fp8_attn_out_e5m6 || mc->fp8_moe_dispatch);
  /* of an MoE layer's 70 forward items outside the experts' loops, 25 come after the
   * dispatcher's sync (permute 2, all-to-alls 4 + 2, sort_chunks 2 + 2, GroupedLinear 8,
   * activation 2, unpermute 2, residual 1: megatron-core.json's moe.host_ops source); the
   * TE linear modules' 12 of them (QKV 2, projection 2, the two GroupedLinear calls 8) are
   * 4 module calls instead, 2 before the sync and 2 after it: 58 eager ops, 17 after */
  g_assert_cmpfloat (mc->moe_host_ops.layer_fwd, ==, 58.0);
  g_assert_cmpfloat (mc->moe_host_ops.layer_fwd_after_sync, ==, 17.0);
  g_assert_cmpfloat (mc->moe_host_ops.te_linear_fwd, ==, 2.0);
  g_assert_cmpfloat (mc->moe_host_ops.te_grouped_fwd, ==, 2.0);
  /* of the 45 items before the sync, a TE CUDA graph replays the router's 14 (cast 1,
   * gating GEMM 1, top-k 4, aux loss 6, statistics 2) and the preprocess's 16 less its
   * device-to-host copies with the event (6) and the sync (1): 9 */
  g_assert_cmpfloat (mc->moe_host_ops.router_fwd, ==, 14.0);
  g_assert_cmpfloat (mc->moe_host_ops.preprocess_fwd_graphed, ==, 9.0);
  g_assert_cmpint (mc->default_pp_microbatches, ==, FW_PP_MB_ONE_SAMPLE);
  g_assert_true (mc->fp8_tp_all_gather);
  g_assert_false (mc->default_cp_allgather);
  /* ZeRO-2 reduce-scatters every micro-batch's gradients (ZeRO Sec. 5.2; DeepSpeed stage
   * 2) unless a stack says per step */
  g_assert_true (mc->zero2_grad_per_microbatch);
  g_assert_true (ds->zero2_grad_per_microbatch);
  /* torch.distributed.pipelining's stage runs FSDP2's backward without gradient sync
   * until the stage's last backward, then every post_backward by hand: per step, after
   * the stage. PyTorch's micro-pipeline TP cannot split the input-gradient reduce-scatter
   * (a sum of several GEMMs): whole after the block. Megatron-Core keeps both defaults. */
  g_assert_false (tt->zero2_grad_per_microbatch);
  g_assert_true (tt->fsdp_pp_grad_after_stage);
  g_assert_true (tt->tp_grad_rs_after_block);
  g_assert_true (tt->fsdp_grad_accum_upcast);   /* FSDP2's post-backward fp32 sum */
  g_assert_false (mc->fsdp_grad_accum_upcast);  /* gradient-accumulation fusion */
  g_assert_true (tt->fsdp_copy_in_out);         /* FSDP2's copy-out / copy-in */
  /* torchtitan's foreach AdamW: 8 passes over the fp32 state, 80 B per parameter; the
   * Megatron stacks leave it to the cost model's fused step (0) */
  g_assert_cmpfloat (tt->optimizer_bytes_per_param, ==, 80.0);
  g_assert_cmpfloat (mc->optimizer_bytes_per_param, ==, 0.0);
  g_assert_false (mc->fsdp_copy_in_out);
  /* PyTorch's context_parallel: ring steps with fp32 merges whatever the exchange, on K/V
   * that torchtitan's model repeats to the query heads; Megatron-Core (TE) neither */
  g_assert_true (tt->cp_ring_merge);
  g_assert_true (tt->cp_kv_repeated);
  g_assert_false (mc->cp_ring_merge);
  g_assert_false (mc->cp_kv_repeated);
  g_assert_false (mc->fsdp_pp_grad_after_stage);
  g_assert_false (mc->tp_grad_rs_after_block);
  /* torch.distributed.pipelining runs its interleaved table in lock step; Megatron-Core's
   * schedule (and NeMo's on it) waits only for each unit's input */
  g_assert_true (tt->pp_lockstep);
  g_assert_false (mc->pp_lockstep);
  /* Megatron-Core's batch_p2p_sync (a device synchronize after each batched exchange of
   * the non-interleaved 1F1B), on in both Megatron stacks and sourced; not torch's */
  g_assert_true (mc->pp_p2p_sync);
  g_assert_true (nemo->pp_p2p_sync);
  g_assert_false (tt->pp_p2p_sync);
  g_assert_nonnull (g_hash_table_lookup (mc->sources, "pp_p2p_sync"));
  g_assert_nonnull (g_hash_table_lookup (nemo->sources, "pp_p2p_sync"));
  g_assert_false (hai->pp_p2p_sync);
  g_autoptr (GError) zerr = NULL;
  g_autoptr (FwStack) per_step = fw_stack_new_from_data (
    "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
    "\"fsdp\": {\"zero2_grad_sync\": \"per_step\"}}", -1, "x.json", &zerr);
  g_assert_no_error (zerr);
  g_assert_false (per_step->zero2_grad_per_microbatch);
  g_assert_cmpstr (fw_stack_preset_for_text ("HAI-LLM (DeepSeek in-house)"), ==, "hai-llm");
  /* AMD's Primus: its Megatron backend, unless the cell names TorchTitan (it was not
   * recognised: the default stack, said so) */
  g_assert_cmpstr (fw_stack_preset_for_text ("Primus v25.10"), ==, "megatron-core");
  g_assert_cmpstr (fw_stack_preset_for_text ("Primus (TorchTitan backend)"), ==, "torchtitan");
  /* Meta's Llama 3 stack as the paper states it (Sec. 3.3.2): FSDP that keeps parameters
   * after the forward (SHARD_GRAD_OP) and reduce-scatters in fp32 in every backward (FSDP's
   * default outside no_sync), asynchronous pipeline exchanges (dataflow, no device
   * synchronize), K/V all-gathered at the KV heads for the local query chunk (no ring
   * merge), one layer slot per model chunk ("the first model chunk on the first stage has
   * only the embedding"); the kernels it does not state are PyTorch's defaults (SDPA's
   * FlashAttention-2, eager). Every other preset states no chunking (0). */
  g_autoptr (FwStack) meta = fw_stack_lookup ("meta-llama3", NULL);
  g_assert_false (meta->fsdp_reshard_after_forward);
  g_assert_false (meta->fsdp_reshard_under_pp);
  g_assert_true (meta->zero2_grad_per_microbatch);
  g_assert_false (meta->grad_reduce_bf16);
  g_assert_cmpint (meta->pp_p2p_sync, ==, FW_P2P_SYNC_NONE);
  g_assert_false (meta->pp_lockstep);
  g_assert_false (meta->cp_ring_merge);
  g_assert_false (meta->cp_kv_repeated);
  g_assert_true (meta->default_cp_allgather);
  g_assert_cmpint (meta->default_sharding, ==, FW_SHARD_ZERO2);
  g_assert_cmpint (meta->attention, ==, FW_ATTN_FLASH2);
  g_assert_cmpint (meta->fusion, ==, FW_FUSION_EAGER);
  g_assert_cmpint (meta->default_pp_chunk_slots, ==, 1);
  g_assert_nonnull (g_hash_table_lookup (meta->sources, "defaults.pp_layers_per_chunk"));
  g_assert_nonnull (g_hash_table_lookup (meta->sources, "fsdp.zero2_grad_sync"));
  /* FSDP1's cast and pre-divide before each synchronized reduce-scatter; FSDP2's copy-in
   * (torchtitan) and Megatron's buckets filled by the GEMMs have neither */
  g_assert_true (meta->fsdp_reduce_passes);
  g_assert_nonnull (g_hash_table_lookup (meta->sources, "fsdp.reduce_passes"));
  g_assert_false (mc->fsdp_reduce_passes);
  g_assert_false (tt->fsdp_reduce_passes);
  g_assert_cmpint (mc->default_pp_chunk_slots, ==, 0);
  g_assert_cmpint (tt->default_pp_chunk_slots, ==, 0);
  /* defaults.grad_accum: the accumulation steps a run that states neither its global
   * batch nor its accumulation took, where the framework documents them, each with its
   * source (torchtitan's global_batch_size -1 = local batch x dp; MaxText's and
   * DeepSpeed's gradient_accumulation_steps 1; a plain FSDP loop steps every batch). The
   * Megatron stacks, NeMo and llm-foundry document none (0): their tables print a global
   * batch, so a row without one has a gap. */
  static const char *const one[] = { "torchtitan", "maxtext", "pytorch-fsdp", "deepspeed" };
  for (guint i = 0; i < G_N_ELEMENTS (one); i++)
    {
      g_autoptr (FwStack) s = fw_stack_lookup (one[i], NULL);
      g_assert_nonnull (s);
      if (s->default_grad_accum != 1
          || g_hash_table_lookup (s->sources, "defaults.grad_accum") == NULL)
        g_error ("%s: defaults.grad_accum %d, source %s", one[i], s->default_grad_accum,
                 (const char *) g_hash_table_lookup (s->sources, "defaults.grad_accum"));
    }
  static const char *const none[] = { "megatron-core", "megatron-lm-2021", "nemo",
                                      "llm-foundry" };
  for (guint i = 0; i < G_N_ELEMENTS (none); i++)
    {
      g_autoptr (FwStack) s = fw_stack_lookup (none[i], NULL);
      g_assert_nonnull (s);
      g_assert_cmpint (s->default_grad_accum, ==, 0);
    }
}

/* Bad files: the message names the file and the field. */
static void
test_bad (void)
{
  static const struct { const char *json, *needle; } bad[] = {
    { "[]", "a stack is a JSON object" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\"}", "'kernel_overhead_us' is required" },
    { "{\"attention\": \"flash9\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1}",
      "'attention' is 'flash9'" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": -1}",
      "'kernel_overhead_us' is -1" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"fp8\": {\"opz\": 1}}", "unknown key 'fp8.opz'" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"fp8\": {\"gemm_rate\": \"fast\"}}", "'fp8.gemm_rate' is 'fast'" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"fp8\": {\"casts\": \"never\"}}", "'fp8.casts' is 'never'" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"fp8\": {\"weight_cast_bytes\": -2}}", "'fp8.weight_cast_bytes' is -2" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"fp8\": {\"output_layer\": \"fp16\"}}", "'fp8.output_layer' is 'fp16'" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"fp8\": {\"param_gather\": \"fp16\"}}", "'fp8.param_gather' is 'fp16'" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"fsdp\": {\"hsdp\": 1}}", "'fsdp.hsdp' must be true or false" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"cp\": {\"merge\": \"bf16\"}}", "'cp.merge' is 'bf16'" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"cp\": {\"kv\": \"repeated\"}}", "unknown key 'cp.kv'" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"fsdp\": {\"gather\": \"bucketed\"}}", "'fsdp.gather' is 'bucketed'" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"fsdp\": {\"prefetch_params\": -5}}", "'fsdp.prefetch_params' is -5" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"fsdp\": {\"zero2_grad_sync\": \"never\"}}", "'fsdp.zero2_grad_sync' is 'never'" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"fsdp\": {\"pp_grad_reduce\": \"late\"}}", "'fsdp.pp_grad_reduce' is 'late'" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"tp_grad_reduce_scatter\": 1}", "tp_grad_reduce_scatter" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"optimizer_bytes_per_param\": -3}", "'optimizer_bytes_per_param' is -3" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"moe\": {\"host_ops\": {\"layer_fwd\": 70, \"layer_fwd_after_sync\": 80}}}",
      "'moe.host_ops.layer_fwd_after_sync' is 80, more than layer_fwd (70)" },
    /* counts are whole: a fraction of a host op or of an SM loaded */
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"moe\": {\"host_ops\": {\"layer_fwd\": 0.5}}}",
      "'moe.host_ops.layer_fwd' is 0.5: a count of host operations is a whole number" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"tp_overlap_sms\": {\"all_gather\": 0, \"reduce_scatter\": 2.5}}",
      "'tp_overlap_sms.reduce_scatter' is 2.5: SMs are whole" },
    /* 58 ops, 17 after the sync: 41 before it, fewer than 30 + 12 */
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"moe\": {\"host_ops\": {\"layer_fwd\": 58, \"layer_fwd_after_sync\": 17, "
      "\"router_fwd\": 30, \"preprocess_fwd_graphed\": 12}}}",
      "'moe.host_ops.router_fwd' with preprocess_fwd_graphed is 42, more than layer_fwd's 41" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"defaults\": {\"pp_layers_per_chunk\": 1.5}}",
      "'defaults.pp_layers_per_chunk' is 1.5, not a whole number" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"defaults\": {\"pp_layers_per_chunk\": -1}}", "'defaults.pp_layers_per_chunk' is -1" },
    /* accumulation steps are whole and not negative (0: none documented) */
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"defaults\": {\"grad_accum\": 1.5}}", "'defaults.grad_accum' is 1.5, not a whole number" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"defaults\": {\"grad_accum\": -1}}", "'defaults.grad_accum' is -1" },
    /* "nccl.pat": a list of the collectives PAT may run */
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"nccl\": {\"pat\": [\"all_reduce\"]}}",
      "'nccl.pat' element 1 is 'all_reduce', not one of all_gather, reduce_scatter" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"nccl\": {\"pat\": true}}", "'nccl.pat' must be a list of names" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"nccl\": {\"tree\": true}}", "unknown key 'nccl.tree'" },
    /* "offers": names from the lists, HSDP as fsdp.hsdp says, orders of the five groups */
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"offers\": {\"sharding\": [\"zero4\"]}}",
      "'offers.sharding' element 1 is 'zero4', not one of none, zero1, zero2, zero3, hsdp" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"offers\": {\"sharding\": [\"none\", \"hsdp\"]}}",
      "'offers.sharding' lists hsdp where fsdp.hsdp is false" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"offers\": {\"sharding\": []}}", "'offers.sharding' is empty" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"offers\": {\"sharding\": [\"zero1\"], \"sharding_with_pp\": [\"zero3\"]}}",
      "'offers.sharding_with_pp' lists a sharding that \"sharding\" does not" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"offers\": {\"schedules\": \"1f1b\"}}", "'offers.schedules' must be a list" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"offers\": {\"rank_orders\": [\"tp-dp-pp\"]}}",
      "'offers.rank_orders' element 1 is not an order of tp, cp, ep, dp and pp" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"offers\": {\"pipelines\": []}}", "unknown key 'offers.pipelines'" },
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"remat\": \"all\"}", "'remat' is 'all'" },
    /* ESC in a name printed in every prediction's text acted on the terminal */
    { "{\"name\": \"a\\u001b[2Jb\", \"attention\": \"flash2\", \"fusion\": \"eager\", "
      "\"kernel_overhead_us\": 1}", "'name' holds a control character" },
    /* a default the stack does not offer: every plan on its defaults was then told to
     * follow the stack with a flag the same stack refused */
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"offers\": {\"sharding\": [\"none\"]}, \"defaults\": {\"sharding\": \"zero3\"}}",
      "'defaults.sharding' is zero3, which offers.sharding leaves out" },
    /* an empty sharding_with_pp beside a pipeline: every pp > 1 plan refused, its hint
     * naming the refused sharding */
    { "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"offers\": {\"sharding_with_pp\": [], \"schedules\": [\"1F1B\"]}}",
      "'offers.sharding_with_pp' is empty while \"schedules\" offers a pipeline" },
    { "{\"attention\": ", "x.json" },
    /* malformed JSON reads like a compiler's message, file:line:column, as a cluster or
     * model file's does (json-glib's "<data>" replaced by the file) */
    { "{\"attention\": \"flash2\",\n \"fusion\": ,", "x.json:2:" },
    /* an empty file says so (it said "a stack is a JSON object") */
    { "", "x.json: empty file" },
    { "  \n", "x.json: empty file" },
  };
  /* a file's own name is kept (a control-character check once replaced it by the file's
   * base name, leaking the first); without one, the base name less ".json" */
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (FwStack) named = fw_stack_new_from_data (
      "{\"name\": \"my-stack\", \"attention\": \"flash2\", \"fusion\": \"eager\", "
      "\"kernel_overhead_us\": 1}", -1, "dir/x.json", &error);
    g_assert_no_error (error);
    g_assert_cmpstr (named->name, ==, "my-stack");
    g_autoptr (FwStack) unnamed = fw_stack_new_from_data (
      "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1}", -1,
      "dir/x.json", &error);
    g_assert_no_error (error);
    g_assert_cmpstr (unnamed->name, ==, "x");
  }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FwStack) s = fw_stack_new_from_data (bad[i].json, -1, "x.json", &error);
      g_assert_null (s);
      g_assert_nonnull (error);
      if (strstr (error->message, bad[i].needle) == NULL
          || strstr (error->message, "<data>") != NULL)
        g_error ("case %u: '%s' lacks '%s'", i, error->message, bad[i].needle);
    }
  /* a file without "offers" offers everything (and HSDP as fsdp.hsdp says); one with
   * it offers what it lists: bit i is the i-th name of stack.h's lists */
  {
    g_autoptr (GError) e = NULL;
    g_autoptr (FwStack) all = fw_stack_new_from_data (
      "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1}", -1,
      "x.json", &e);
    g_assert_no_error (e);
    g_assert_cmphex (all->offers_sharding, ==, 0xF);     /* none..zero3, no hsdp */
    g_assert_cmphex (all->offers_schedules, ==, 0xF);
    g_assert_cmphex (all->offers_cp_comm, ==, 0x7);
    g_assert_null (all->offers_rank_orders);
    g_autoptr (FwStack) some = fw_stack_new_from_data (
      "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"fsdp\": {\"hsdp\": true}, \"offers\": {\"sharding\": [\"zero3\", \"hsdp\", \"none\"], "
      "\"sharding_with_pp\": [\"none\"], \"schedules\": [], \"cp_comm\": [\"a2a\"], "
      "\"rank_orders\": [\"tp-cp-ep-pp-dp\"]}}", -1, "x.json", &e);
    g_assert_no_error (e);
    /* none (bit 0) + zero3 (bit 3) + hsdp (bit 4) = 0x19; a2a bit 2 = 0x4 */
    g_assert_cmphex (some->offers_sharding, ==, 0x19);
    g_assert_cmphex (some->offers_sharding_pp, ==, 0x1);
    g_assert_cmphex (some->offers_schedules, ==, 0);
    g_assert_cmphex (some->offers_cp_comm, ==, 0x4);
    g_assert_cmpstr (some->offers_rank_orders[0], ==, "tp-cp-ep-pp-dp");
    g_assert_null (some->offers_rank_orders[1]);
    g_autofree char *t = fw_offer_list_text (some->offers_sharding, fw_offer_sharding_names);
    g_assert_cmpstr (t, ==, "none, zero3 or hsdp");
  }
  {
    /* "nccl": absent is none; the list sets its bits (all_gather 1, reduce_scatter 2) */
    g_autoptr (GError) e = NULL;
    g_autoptr (FwStack) none = fw_stack_new_from_data (
      "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1}", -1,
      "x.json", &e);
    g_assert_no_error (e);
    g_assert_cmphex (none->nccl_pat, ==, 0);
    g_autoptr (FwStack) ag = fw_stack_new_from_data (
      "{\"attention\": \"flash2\", \"fusion\": \"eager\", \"kernel_overhead_us\": 1, "
      "\"nccl\": {\"pat\": [\"reduce_scatter\", \"all_gather\"]}}", -1, "x.json", &e);
    g_assert_no_error (e);
    g_assert_cmphex (ag->nccl_pat, ==, 0x3);
  }
  g_autoptr (GError) error = NULL;
  g_assert_null (fw_stack_lookup ("no-such-stack", &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "megatron-core"));   /* the hint lists them */
}

/* Framework column text -> preset, each rule of stack.c's table with its examples. */
static void
test_text (void)
{
  static const struct { const char *text, *preset; } rows[] = {
    { "NeMo 24.07 (Megatron-Core)", "nemo" },
    { "Megatron-Core r0.8.0", "megatron-core" },
    /* "Megatron-LM" without "Core" and without a year from 2023: before Megatron-Core */
    { "Megatron-LM (2021)", "megatron-lm-2021" },
    { "Megatron-LM (2022)", "megatron-lm-2021" },
    { "Megatron-LM PTD", "megatron-lm-2021" },
    { "Megatron-LM", "megatron-lm-2021" },
    { "megatron-lm v2.5", "megatron-lm-2021" },
    /* ... with "Core" or a later year: Megatron-Core */
    { "Megatron-LM (Megatron-Core r0.12)", "megatron-core" },
    { "Megatron-Core (Megatron-LM main(1e057005), Megatron-MoE-ModelZoo scripts)",
      "megatron-core" },
    { "Megatron-LM (2024)", "megatron-core" },
    { "Megatron-LM core_r0.9.0", "megatron-core" },
    /* a YY.MM version from 23 is of 2023 on, as the year is; "22.xx" is of 2022; a
     * longer number is no version ("2205.05198", "1.23.08") */
    { "Megatron-LM v23.08", "megatron-core" },
    { "Megatron-LM 24.01", "megatron-core" },
    { "Megatron-LM (NGC 23.10)", "megatron-core" },
    { "Megatron-LM v22.05", "megatron-lm-2021" },
    { "Megatron-LM (arXiv 2205.05198)", "megatron-lm-2021" },
    { "Megatron-LM 1.23.08", "megatron-lm-2021" },
    { "Megatron-LM v23.13", "megatron-lm-2021" },
    { "Megatron-LM v3.0", "megatron-lm-2021" },
    /* a DD.MM.YYYY date is no YY.MM version: its year dates it (both read megatron-core) */
    { "Megatron-LM (commit of 23.10.2021)", "megatron-lm-2021" },
    { "Megatron-LM, 24.05.2022 checkout", "megatron-lm-2021" },
    { "Megatron-LM (checkout 2022-05-24)", "megatron-lm-2021" },
    { "Megatron-LM (commit of 23.10.2024)", "megatron-core" },
    /* the name alone, however it is introduced: the 2021-22 code (a row naming the
     * distributed optimizer is moved by the mapping: tests/results/test-mapping.c) */
    { "NVIDIA Megatron-LM", "megatron-lm-2021" },
    { "MegaScale (Megatron-LM based)", "megatron-lm-2021" },
    /* a version number is not a year ("r0.8.0", "2201.11990") */
    { "Megatron-LM (arXiv 2104.04473)", "megatron-lm-2021" },
    { "NeMo 24.07 (Megatron-LM underneath)", "nemo" },
    /* NeMo's PyTorch backend (FSDP2 over Hugging Face model code with TE kernels), not
     * NeMo on Megatron-Core: the NeMo AutoModel performance summary's own description */
    { "NeMo AutoModel (PyTorch FSDP2 + Transformer Engine + DeepEP)", "nemo-automodel" },
    { "NeMo Automodel", "nemo-automodel" },
    { "NeMo Megatron-Bridge 26.02 (Megatron-Core)", "nemo" },
    { "Megatron-DeepSpeed", "deepspeed" },
    { "DeepSpeed ZeRO-3", "deepspeed" },
    { "GPT-NeoX (Megatron + DeepSpeed)", "deepspeed" },
    { "torchtitan (FSDP2, 2024-04)", "torchtitan" },
    { "Composer/llm-foundry (PyTorch FSDP1, FlashAttention)", "llm-foundry" },
    { "MaxText", "maxtext" },
    { "JAX/Pathways (2 pods, DP across pods)", "maxtext" },
    { "metaseq (FSDP + Megatron TP)", "megatron-core" },   /* "megatron" comes first */
    { "PyTorch FSDP", "pytorch-fsdp" },
    { "Hugging Face Accelerate", "pytorch-fsdp" },
    /* the same name without its hyphen: the same rule ("Megatron LM" was megatron-core by
     * the bare "megatron" row, a misread of the pre-Core rule) */
    { "Megatron LM", "megatron-lm-2021" },
    { "MegatronLM", "megatron-lm-2021" },
    { "Megatron LM core_r0.12.0", "megatron-core" },
    /* Megatron-Bridge is NeMo's (NVIDIA-NeMo/Megatron-Bridge), with or without "NeMo" */
    { "Megatron-Bridge", "nemo" },
    { "Megatron Bridge 25.09", "nemo" },
    /* Megatron-Core's short names */
    { "MCore 0.12", "megatron-core" },
    { "M-Core", "megatron-core" },
    /* PyTorch-native on FSDP2 */
    { "torchtune", "pytorch-fsdp" },
    /* JAX trainers, XLA-compiled */
    { "Levanter", "maxtext" },
    { "T5X", "maxtext" },
    { "Praxis", "maxtext" },
    { "EasyLM (JAX)", "maxtext" },
    { "AXLearn", "maxtext" },
    /* AI2's OLMo / OLMo-core on PyTorch FSDP (OLMo paper Sec. 3.1); Hugging Face by its
     * short name */
    { "OLMo", "pytorch-fsdp" },
    { "OLMo-core", "pytorch-fsdp" },
    { "HF Transformers", "pytorch-fsdp" },
    { "HF Trainer + FSDP", "pytorch-fsdp" },
    /* llm-foundry by the name with a space (as MosaicML writes it), its package name or
     * an underscore (these were not recognised); Composer, its trainer, as before */
    { "LLM Foundry", "llm-foundry" },
    { "MosaicML LLM Foundry", "llm-foundry" },
    { "llmfoundry", "llm-foundry" },
    { "llm_foundry", "llm-foundry" },
    { "LLM Foundry (Composer, PyTorch FSDP)", "llm-foundry" },
    { "MosaicML Composer", "llm-foundry" },
    { "Composer", "llm-foundry" },
    /* frameworks no preset models stay unrecognised (the default stack, said so) */
    { "Colossal-AI", NULL },
    { "InternEvo", NULL },
    { "Nanotron", NULL },
    /* ... also beside "Hugging Face" (read as pytorch-fsdp before) */
    { "Hugging Face Nanotron", NULL },
    { "picotron (Hugging Face)", NULL },
    /* Lightning's FSDPStrategy is PyTorch FSDP (these were not recognised) */
    { "LitGPT", "pytorch-fsdp" },
    { "lit-gpt", "pytorch-fsdp" },
    { "Lightning Fabric", "pytorch-fsdp" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    g_assert_cmpstr (fw_stack_preset_for_text (rows[i].text), ==, rows[i].preset);
  /* Meta's Llama 3 stack by the paper's name for its parallelism or its NCCL fork, not by
   * "meta" (metaseq, above, is FSDP + Megatron TP) */
  g_assert_cmpstr (fw_stack_preset_for_text ("Meta internal (4D parallel, NCCLX)"), ==,
                   "meta-llama3");
  g_assert_cmpstr (fw_stack_preset_for_text ("Meta 4D parallelism"), ==, "meta-llama3");
  g_assert_cmpstr (fw_stack_preset_for_text ("in-house (NCCLX)"), ==, "meta-llama3");
  g_assert_null (fw_stack_preset_for_text ("Meta internal"));
  /* torchtitan named is torchtitan, though the cell says 4D (or NCCLX); "4D" without
   * "Meta" names no stack (these were meta-llama3) */
  g_assert_cmpstr (fw_stack_preset_for_text ("torchtitan (4D parallelism)"), ==, "torchtitan");
  g_assert_cmpstr (fw_stack_preset_for_text ("TorchTitan with NCCLX-free 4D parallel"), ==,
                   "torchtitan");
  g_assert_null (fw_stack_preset_for_text ("in-house trainer (4D parallelism)"));
  g_assert_null (fw_stack_preset_for_text ("4D parallel"));
  /* NeMo is a word, not the start of "Nemotron" (these were the nemo stack) */
  g_assert_cmpstr (fw_stack_preset_for_text ("Megatron-LM (Nemotron recipe)"), ==,
                   "megatron-lm-2021");
  g_assert_cmpstr (fw_stack_preset_for_text ("Megatron-Core (Nemotron-H recipe)"), ==,
                   "megatron-core");
  g_assert_cmpstr (fw_stack_preset_for_text ("NeMo2 (Nemotron-4 recipe)"), ==, "nemo");
  /* 3D parallelism (TP, PP, DP) is no FSDP-only stack: "PyTorch" beside it names none
   * (it was pytorch-fsdp, which has no pipeline); a 3D-parallel stack named keeps it */
  g_assert_null (fw_stack_preset_for_text ("Gigatron (TII in-house, PyTorch 3D parallelism)"));
  g_assert_null (fw_stack_preset_for_text ("Gigatron (PyTorch, 3D parallelism)"));
  g_assert_cmpstr (fw_stack_preset_for_text ("Megatron-DeepSpeed (3D parallelism)"), ==,
                   "deepspeed");
  g_assert_null (fw_stack_preset_for_text (""));
}

/* The cost model reads the stack. On an H100 cluster (the h100-24k preset):
 *  - FP8 recipe with attention in bf16: an attention op asked in fp8 costs what it costs
 *    in bf16 (TE without fp8_dpa), and more than the same op with fp8 attention on,
 *    which runs at the fp8 peak (2x);
 *  - torchtitan's FA2 on Hopper runs at FA2's causal 16K rate over cuDNN's causal 4K
 *    one of the cuDNN figure (FlashAttention-3 paper Fig. 5e: 335/518 = 0.647 forward;
 *    the causal backward derived in sim/cost.c: 291.5/424.4 = 0.687), each curve being 1
 *    at that length;
 *  - eager fusion charges 2.1 passes per norm; the kernel overhead is the stack's. */
static void
test_cost_reads_stack (void)
{
  g_autoptr (TopoCluster) cl = topo_cluster_lookup ("h100-24k", NULL);
  g_assert_nonnull (cl);
  g_autoptr (FwStack) mc = fw_stack_lookup ("megatron-core", NULL);
  g_autoptr (FwStack) tt = fw_stack_lookup ("torchtitan", NULL);
  SimCostOptions om, ot;
  sim_cost_options_init_stack (&om, cl, mc);
  sim_cost_options_init_stack (&ot, cl, tt);
  g_assert_false (om.extrapolated);
  g_assert_true (ot.extrapolated);   /* no FA2 run on Hopper in the fitted set */
  g_assert_cmpfloat_with_epsilon (ot.attn_fwd_efficiency / om.attn_fwd_efficiency,
                                  335.0 / 518.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (ot.attn_bwd_efficiency / om.attn_bwd_efficiency,
                                  291.5 / 424.4, 1e-12);
  /* a Triton flash kernel: its own causal 16K figure, 378/518 = 0.730 forward, and FA2's
   * backward (no Triton backward panel) */
  g_autoptr (GError) terr = NULL;
  g_autoptr (FwStack) tr = fw_stack_new_from_data (
    "{\"attention\": \"triton\", \"fusion\": \"eager\", \"kernel_overhead_us\": 4}",
    -1, "x.json", &terr);
  g_assert_no_error (terr);
  SimCostOptions otr;
  sim_cost_options_init_stack (&otr, cl, tr);
  g_assert_cmpfloat_with_epsilon (otr.attn_fwd_efficiency / om.attn_fwd_efficiency,
                                  378.0 / 518.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (otr.attn_bwd_efficiency / om.attn_bwd_efficiency,
                                  291.5 / 424.4, 1e-12);
  g_assert_cmpfloat (om.launch_overhead_s, ==, 1.0e-6);
  g_assert_cmpfloat (ot.launch_overhead_s, ==, 4.0e-6);
  g_assert_cmpfloat (om.elementwise_passes, ==, 1.0);
  g_assert_cmpfloat (ot.elementwise_passes, ==, 2.1);

  /* Attention of llama3-8b shape, one sequence of 8192, 32 heads of 128: forward FLOPs
   * 4 x 8192^2 x 32 x 128 / 2 (causal) = 549.8 GFLOP, compute-bound at any efficiency
   * here, so time = flops / (peak x eff) + launch; the kernel taken at 4K, the length at
   * which the fitted figure holds (sim/cost.c ATTN_LEN_*). */
  ModelOp op = { 0 };
  op.kind = MODEL_OP_ATTENTION;
  op.b = 1, op.s_q = op.s_kv = 8192, op.heads = op.kv_heads = 32, op.head_dim = 128;
  op.kernel_s = 4096;
  op.causal = TRUE;
  op.fwd_flops = 4.0 * 8192.0 * 8192.0 * 32 * 128 / 2;
  g_autoptr (SimCost) c = sim_cost_new (cl, NULL, &om);
  const double bf16 = sim_cost_op_s (c, &op, TOPO_DTYPE_BF16, FALSE);
  const double fp8 = sim_cost_op_s (c, &op, TOPO_DTYPE_FP8, FALSE);
  g_assert_cmpfloat (fp8, ==, bf16);
  const double want = op.fwd_flops / (cl->device.peak_flops[TOPO_DTYPE_BF16]
                                      * om.attn_fwd_efficiency) + om.launch_overhead_s;
  g_assert_cmpfloat_with_epsilon (bf16 / want, 1.0, 1e-12);
  SimCostOptions of = om;
  of.fp8_attention = TRUE;
  g_autoptr (SimCost) cf = sim_cost_new (cl, NULL, &of);
  g_assert_cmpfloat (sim_cost_op_s (cf, &op, TOPO_DTYPE_FP8, FALSE), <, bf16);
}

/* Device names in vendor prose, any case, find their architecture's calibration: the
 * fitted Hopper GEMM fraction times the device's own MAMF. */
static void
test_device_names (void)
{
  g_autoptr (TopoCluster) cl = topo_cluster_lookup ("h200-node", NULL);
  g_assert_nonnull (cl);
  SimCostOptions o;
  sim_cost_options_init (&o, cl);
  /* h200-node: MAMF 0.803 (its preset), Hopper fraction 0.7847 / 0.803 -> 0.7847 */
  g_assert_cmpfloat_with_epsilon (o.gemm_efficiency, 0.7847, 1e-9);
  g_assert_false (o.extrapolated);
  g_autoptr (TopoCluster) b = topo_cluster_lookup ("b200-node", NULL);
  sim_cost_options_init (&o, b);
  /* B200 MAMF 0.776 x 0.7847 / 0.803, extrapolated from Hopper */
  g_assert_cmpfloat_with_epsilon (o.gemm_efficiency, 0.776 * 0.7847 / 0.803, 1e-9);
  g_assert_true (o.extrapolated);
}

/* Every preset shown as JSON (tandem show framework NAME --json) and read back is the same
 * stack: its JSON again byte for byte, and the MoE host-op table whole (router_fwd and
 * preprocess_fwd_graphed were not written, so a stack fed back lost the graphed router's
 * saving: 32.42 -> 33.44 s a step for qwen3-30b-a3b on B200 with CUDA graphs) */
static void
test_show_round_trip (void)
{
  g_auto (GStrv) names = fw_stack_preset_names ();
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (FwStack) s = fw_stack_lookup (names[i], &error);
      g_assert_no_error (error);
      g_autoptr (JsonBuilder) b = json_builder_new ();
      fw_stack_to_json (s, b);
      g_autoptr (JsonNode) root = json_builder_get_root (b);
      g_autofree char *text = json_to_string (root, TRUE);
      g_autoptr (FwStack) back = fw_stack_new_from_data (text, -1, "shown.json", &error);
      if (back == NULL)
        g_error ("%s: its own JSON refused: %s", names[i], error->message);
      g_assert_true (memcmp (&s->moe_host_ops, &back->moe_host_ops,
                             sizeof s->moe_host_ops) == 0);
      g_autoptr (JsonBuilder) b2 = json_builder_new ();
      fw_stack_to_json (back, b2);
      g_autoptr (JsonNode) root2 = json_builder_get_root (b2);
      g_autofree char *text2 = json_to_string (root2, TRUE);
      g_assert_cmpstr (text, ==, text2);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/frameworks/stack/show-round-trip", test_show_round_trip);
  g_test_add_func ("/frameworks/stack/presets", test_presets);
  g_test_add_func ("/frameworks/stack/semantics", test_semantics);
  g_test_add_func ("/frameworks/stack/dropout", test_dropout);
  g_test_add_func ("/frameworks/stack/megatron-lm-2021", test_megatron_lm_2021);
  g_test_add_func ("/frameworks/stack/bad", test_bad);
  g_test_add_func ("/frameworks/stack/text", test_text);
  g_test_add_func ("/frameworks/stack/cost", test_cost_reads_stack);
  g_test_add_func ("/frameworks/stack/device-names", test_device_names);
  return g_test_run ();
}
