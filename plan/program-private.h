/* plan/program-private.h - what the step program's builder files share
 * (program.c: tasks, stages, buckets; program-blocks.c: the per-rank ops and blocks). */
#pragma once

#include "plan/program.h"

G_BEGIN_DECLS

typedef struct {
  ProgProgram *prog;
  const ModelSpec *m;
  const Plan *plan;
  const PlanLayout *layout;
  /* per-rank sizes */
  guint64 b, s, t, c;
  guint64 tok;          /* tokens per rank in the GEMMs: b s / c */
  guint64 tok_sp;       /* tokens in norms and element-wise ops: tok / t with SP */
  double elt_bytes;     /* bytes per activation element: 2 (bf16), 4 (fp32 plans) */
  double act_bytes;     /* one activation tensor [tok, h] */
  double tp_ag_bytes;   /* what a layer's TP all-gather moves of it (fp8: half) */
  double pp_bytes;      /* what crosses a stage boundary */
  double pp_wire_bytes; /* what one rank sends of it: pp_bytes / t with scatter-gather
                         * (plan.h pp_scatter_gather), else pp_bytes */
  gboolean pp_gather;   /* scatter-gather: each receive is all-gathered over TP */
  double kv_bytes;      /* K and V of one CP shard */
  double grad_bytes_per_param;
  /* blocks */
  guint32 blk[32];
  guint32 blk_chunk[32];  /* the same blocks on 1/tp_chunks of the tokens */
  guint32 blk_rest[32];   /* async TP (plan.h async_tp): what of a block the micro-pipeline
                           * pass leaves whole, on all the tokens; blk_chunk then holds
                           * only its decomposed GEMMs. G_MAXUINT32: the block is
                           * chunked whole (TE userbuffers' overlap) */
  guint32 async_tp_reduce; /* async TP: the sum of the tp partial outputs a fused
                            * matmul-reduce-scatter pulls in, on the compute stream */
  int     tp_chunks;      /* > 1: TP communication overlapped chunk by chunk */
  guint64 q_div;          /* queries of a block divided by this (chunked blocks) */
  gboolean attn_dropout;  /* unfused attention: dropout on the probabilities */
  /* pipeline peers: send task ids keyed by (backward, mb, model chunk) */
  gint32 *send_of;
  GArray *recvs;        /* the RECV tasks' ids (guint32) as they are added, so that their
                         * peers are resolved without a pass over every task */
  /* torch.distributed.pipelining's lock step (plan.h pp_lockstep; program.c lockstep_*):
   * the steps of the longest rank's table, and the tasks the stage's next unit waits for
   * (add_task gives them to the first task it adds, then empties the list) */
  int     lock_steps;
  /* DualPipe: the key of stage s's send of its gradients to its mirror rank is
   * grad_pair_key + s (build_stage) */
  int     grad_pair_key;
  /* DualPipe's weight-gradient split (ProgSlot.w): per block id b, w_split[2 b] and
   * w_split[2 b + 1] are the block without its weight-gradient GEMMs and the block of
   * those alone (G_MAXUINT32: b is not split); NULL when nothing is split. While
   * defer_w, compute tasks of split blocks run the first part and record the second in
   * w_cur; a deferred unit's list waits in w_fifo for its W slot. */
  guint32 *w_split;
  guint    w_split_n;
  gboolean defer_w;
  GArray  *w_cur;
  GQueue  *w_fifo;
  GArray *gate;
  /* Megatron-Core's batch_p2p_sync (plan.h pp_p2p_sync; program.c sync_*): while sync_n >
   * 0, the first task of each stream (other than a SEND or RECV) that the unit being
   * built adds waits for sync_gate, the stage's streams' last tasks before the unit;
   * sync_done has a bit per stream already given them, and the unit's first compute task
   * is marked host_sync (sync_flagged once it is) */
  guint   sync_n;
  gint32  sync_gate[PROG_STREAM_N];
  guint   sync_done;
  gboolean sync_flagged;
  int     n_model_chunks;
  /* per model chunk c: its first layer (chunk_first[c]) and layer count
   * (chunk_first[c + 1] - chunk_first[c]), from plan_chunk_first_layer once rather than
   * per unit (its loop over the chunks before cost a fortieth of a prediction) */
  int    *chunk_first;
  int     m_micro;
  /* current stage */
  int     stage;
  gboolean recomputing;   /* expanding a full recompute: its forward tasks are phase
                           * RECOMPUTE and carry no model FLOPs */
  gint32  recompute_ag, recompute_eag;   /* ZeRO-3: the gathers a recomputed layer's
                                          * forward reads its parameters from (-1 none) */
  GArray *cur_deps;
  /* elements the tasks and deps arrays hold room for (add_task fills them in place), and
   * the RECV list (recvs) and the program's stamps (array_append) */
  guint   tasks_cap, deps_cap, recvs_cap, stamps_cap;
  /* ZeRO-1/2 parameter all-gather ids per layer when overlapped (-1 none) */
  gint32 *param_ag_of_layer;
  double *layer_params_local;
  double *layer_fp8_params_local; /* of them, linear weights gathered in fp8 (FSDP float8
                                   * all-gather; 0 otherwise) */
  double  embed_params_local, head_params_local;
  /* multi-token prediction (plan.h mtp_num_layers; program.c mtp_forward): one module's
   * parameters on this rank outside its routed experts (its layer, norms and eh_proj) and
   * its routed experts, and the word embedding the last stage holds for the modules'
   * lookups (Megatron-Core's GPTModel builds the embedding where pre_process or
   * mtp_process; 0 where the stage holds model chunk 0 anyway, or tied) */
  double  mtp_params_local, mtp_expert_params_local, mtp_embed_local;
  gboolean in_mtp;      /* building an MTP module's layer (layer_recomputed) */
  gboolean pair_hold;   /* combined 1F1B: pair_node keeps the current key (MTP tasks join
                         * the head's node) */
  /* FSDP2 accumulating unsharded gradients across micro-batches in the reduce dtype
   * (plan.h grad_accum_upcast): per layer its first micro-batch's upcast block and the
   * later ones' accumulate block (NULL: not run) */
  guint32 *grad_accum_blk;
  /* The stage's gradient reductions as build_stage issues them (program.c
   * issue_reductions): under torch.distributed.pipelining (plan.h pp_grad_after_stage)
   * expand_slot issues a model chunk's before the send of its last backward, since
   * FSDP2's post_backward, run by hand there, makes the compute stream wait for the
   * previous group's reduce-scatter before it issues the next (program.c
   * post_backward_wait). rs_wait_blk: an empty block, that wait on the compute stream. */
  struct {
    GArray  *buckets;       /* the stage's dense buckets (not owned) */
    GArray  *reductions;    /* the reductions issued so far (not owned) */
    guint    next;          /* the next bucket to issue */
    gboolean overlap, after_stage, dist_opt;
    int      axis;          /* PlanAxis of the reductions */
  } rs;
  guint32  rs_wait_blk;
  /* FSDP2's copies (plan.h zero3_copy_in_out): per layer the copy out of its gathered
   * parameters and the copy into its gradient reduce-scatter's input (NULL: none) */
  guint32 *copy_out_blk, *copy_in_blk;
  /* FSDP1's passes before a ZeRO-2 per-micro-batch reduce-scatter (plan.h
   * zero2_reduce_passes): per layer, and the embedding's and the head's (NULL, or
   * G_MAXUINT32 for the embedding and head: none) */
  guint32 *reduce_pass_blk, embed_pass_blk, head_pass_blk;
  /* CPU activation offload (program.h): the layers of a chunk offloaded (0: none), the
   * bytes one layer's copy moves per micro-batch, the copy task of each offloaded layer
   * of the unit being built (-1 none), and a task the next compute task added waits for
   * (-1 none: add_task gives it to that task, then clears it) */
  int     offload_layers;
  double  offload_bytes;
  gint32 *offload_copy;
  gint32  compute_gate;
  /* MoE (moe.experts > 0): the expert weights of each layer on this rank (0 for dense
   * layers), reduced over the expert data-parallel group instead of DP */
  PlanMoe moe;
  double *layer_expert_params_local;
  gint32 *expert_ag_of_layer;   /* ZeRO-1/2 overlapped gather of a layer's experts */
  /* --overlap-moe-expert-parallel-comm (Megatron-Core's combined 1F1B): a steady-state
   * forward unit and the backward unit after it are built as one, layer by layer, in
   * the issue order of Megatron's TransformerLayerSchedulePlan.run (program.c
   * expand_pair). While `pairing`, every task added gets the key key_cur in pair_key
   * (tasks from pair_start on): the merged order sorts the two units' tasks by it. */
  gboolean pairing;
  /* --overlap-moe-expert-parallel-comm on a plan Megatron-Core cannot pair (1F1B with
   * PP > 1: the HAI-LLM stack's DualPipe, whose all-to-alls the DeepSeek-V3 report says
   * are fully hidden): a layer's compute does not wait for its own all-to-alls; the next
   * MoE layer issued on the stage waits for them (moe_a2a_pending, -1 none) */
  gboolean a2a_next_layer;
  gint32   moe_a2a_pending;
  guint32  pair_start;
  GArray  *pair_key;            /* guint32 per task since pair_start */
  guint32  key_cur;
  int      key_pos;             /* the layer pair the tasks being added belong to */
  int      pair_ov, pair_nb;    /* layers paired (the fewer of the two units'), and the
                                 * backward unit's layers */
  guint32  pair_cap;            /* scratch of expand_pair, pair_cap tasks each */
  guint32 *pair_order, *pair_newpos;
  ProgTask *pair_old;
} Builder;

enum {
  B_EMBED_F, B_EMBED_B, B_ATTN_F, B_ATTN_B, B_ATTN_PRE_F, B_ATTN_CORE_F, B_ATTN_POST_F,
  B_ATTN_PRE_B, B_ATTN_CORE_B, B_ATTN_POST_B, B_MLP_F, B_MLP_B, B_HEAD_F, B_HEAD_B,
  B_RECOMP_ATTN_CORE, B_RECOMP_SAC_OP, B_OPTIMIZER,
  B_MOE_ROUTE_F, B_MOE_ROUTE_B, B_MOE_EXPERTS_F, B_MOE_EXPERTS_B, B_MOE_COMBINE_F,
  B_MOE_COMBINE_B, B_MOE_SHARED_F, B_MOE_SHARED_B,
  B_GDN_F, B_GDN_B,     /* a Gated DeltaNet layer's mixer (in place of B_ATTN_F/B) */
  B_CP_FIRST_F, B_CP_FIRST_B, /* context_parallel with all-gathered K/V (plan.h
                               * cp_ring_merge): the first ring step, which does not wait
                               * for the all-gather (B_ATTN_CORE_F/B then hold the rest) */
  B_MTP_F, B_MTP_B,   /* a multi-token-prediction module's own ops (plan.h mtp_num_layers):
                       * enorm, hnorm, the concatenation and the eh_proj 2h -> h; its
                       * embedding, layer and head are the B_EMBED, layer and B_HEAD blocks */
  B_N_BLOCKS
};
G_STATIC_ASSERT (B_N_BLOCKS <= 32);   /* Builder.blk[] */

/* Whether prog_program_new copies a steady-middle unit from its template rather than
 * expanding it (program.c, stamped units; TRUE): the tests that compare the two set it. */
extern gboolean prog_stamp_units;

/* Fills prog->moe from the builder's plan and token counts (experts 0: dense). */
void    prog_builder_moe_shape (Builder *bd);
/* Adds the MoE blocks (B_MOE_*) at the builder's token counts. */
void    prog_builder_build_moe_blocks (Builder *bd);

/* Appends an element-wise / norm / embedding / loss op of `elements` elements doing
 * `per_elem` FLOPs each. */
void    prog_builder_elem (GArray *ops, const char *name, ModelOpKind kind, guint64 elements,
                           double per_elem);
/* Moves `ops` into the program as one block (ops is emptied) and returns its index. */
guint32 prog_builder_add_block (Builder *bd, ProgBlockKind kind, ProgPhase phase,
                                const char *name, GArray *ops, double model_flops);
/* Fills bd->blk[] with the blocks of one layer, the embedding and the head at the
 * builder's current token counts. */
void    prog_builder_build_blocks (Builder *bd);

G_END_DECLS
