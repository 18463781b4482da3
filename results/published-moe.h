/* results/published-moe.h - the `moe` column of data/published-runs.csv: the
 * mixture-of-experts fields of a published run, as `key=value;` pairs.
 *
 * Contract:
 *  - An empty cell (or only spaces) is a dense row: present FALSE, every field zero.
 *  - Otherwise the cell is pairs `key=value` separated by ';' (a trailing ';' and spaces
 *    around keys and values are allowed; keys are case-sensitive, lower case). Each key
 *    at most once; an unknown key, a repeated key, a pair without '=' (but the flags
 *    below), a value that is not of its kind or out of its range refuses the cell with
 *    one line that names the key (res_pub_moe_parse returns FALSE and *why).
 *  - The frameworks' own names of a key read as the key (a repeat of either is the key
 *    given twice): expert_tensor_parallel_size (etp), interleave_moe_layer_step (Hugging
 *    Face Llama4TextConfig's; moe_every), moe_expert_capacity_factor (capacity_factor),
 *    moe_pad_expert_input_to_capacity (pad; True / False / 1 / 0),
 *    moe_router_force_load_balancing (routing: True / 1 forced, False / 0 said not
 *    forced, forced_off).
 *  - A pair without '=' that says how the run routed, in the words of the row's text
 *    readers below: forced balance ("force load balancing", "force-balance",
 *    "--moe-router-force-load-balancing") -> routing forced, said off -> forced_off;
 *    token drop ("tokendrop", "(tokendrop)", "token drop") -> capacity_factor 1 and pad 1
 *    (NeMo's token-drop defaults) or the factor it states; "dropless" / "token-dropless"
 *    -> no_drop. A pair saying both ways, or token drop (a flag or capacity_factor)
 *    beside dropless (routing=dropless or a flag), refuses the cell: they contradict.
 *  - Required: experts, top_k, moe_ffn. top_k <= experts; shared_expert_ffn only with
 *    shared_experts > 0 (and defaults to shared_experts x moe_ffn, Megatron-Core's
 *    --moe-shared-expert-intermediate-size being the total of the shared experts).
 *  - Checks that need the row's other columns (dense_layers < n_layers, ep divides
 *    experts, sliding_window_layers <= n_layers) are the mapper's, not the parser's.
 *  - Never prints, never exits.
 *
 * | key                   | value                                        | meaning                                  |
 * |-----------------------|----------------------------------------------|------------------------------------------|
 * | experts               | 1 .. 65,536                                  | routed experts per MoE layer             |
 * | top_k                 | 1 .. experts                                 | routed experts per token                 |
 * | moe_ffn               | 1 .. MODEL_MAX_FFN                           | FFN hidden size of one routed expert     |
 * | shared_experts        | 0 .. 65,536 (default 0)                      | always-active experts                    |
 * | shared_expert_ffn     | 1 .. MODEL_MAX_FFN (default shared x moe_ffn)| FFN hidden of all shared experts together|
 * | dense_layers          | 0 .. MODEL_MAX_LAYERS (default 0)            | the first layers, dense (DeepSeek's      |
 * |                       |                                              |   first_k_dense_replace)                 |
 * | dense_ffn             | 1 .. MODEL_MAX_FFN (default: ffn_hidden)     | FFN hidden of the dense layers (these    |
 * |                       |                                              |   and moe_every's)                       |
 * | etp                   | 1 .. PLAN_MAX_WORLD (default: the ep cell's  | expert tensor parallelism                |
 * |                       |   or the notes', res_pub_moe_read_row; else  |                                          |
 * |                       |   not stated: the TP degree)                 |                                          |
 * | moe_every             | 1 .. MODEL_MAX_LAYERS (default 1)            | MoE every N-th layer after the dense     |
 * |                       |                                              |   ones, the others dense with dense_ffn  |
 * |                       |                                              |   (Llama 4 Maverick: 2, 24 of 48 layers; |
 * |                       |                                              |   models/model.h moe_layer_step)         |
 * | dispatcher            | alltoall, allgather, deepep, hybridep        | token dispatcher (Megatron-Core's         |
 * |                       |                                              |   alltoall / allgather / flex backends)  |
 * | routing               | forced, dropless (default: forced where the  | forced-balance benchmark routing, or     |
 * |                       |   model cell or notes say it)                |   learned dropless routing               |
 * | capacity_factor       | number > 0 and <= 1000 (default: token drop  | token-drop capacity factor               |
 * |                       |   the model cell or notes say, not dropless) |                                          |
 * | pad                   | 0, 1 (default 0; 1 needs capacity_factor)    | token drop and pad: every expert padded  |
 * |                       |                                              |   to its capacity, no host sync          |
 * |                       |                                              |   (Megatron-Core moe_pad_expert_input_to_|
 * |                       |                                              |   capacity; NeMo's "tokendrop" rows)     |
 * | a2a_overlap           | none, 1f1b                                   | EP all-to-all hidden behind the other     |
 * |                       |                                              |   micro-batch in 1F1B                    |
 * | cuda_graph            | scopes joined by '+': attn, mlp, moe,        | Transformer Engine CUDA graphs of those  |
 * |                       |   moe_router, moe_preprocess                 |   scopes (--cuda-graph-impl              |
 * |                       |                                              |   transformer_engine --cuda-graph-scope) |
 * | head_dim              | 1 .. MODEL_MAX_HEADS                         | attention head size when not hidden/heads|
 * | mtp_layers            | 0 .. 64 (default 0)                          | MTP modules the run trained (its         |
 * |                       |                                              | --mtp-num-layers; the model's count too) |
 * | sliding_window        | 1 .. MODEL_MAX_POSITIONS                     | window of the sliding-window layers      |
 * | sliding_window_layers | 1 .. MODEL_MAX_LAYERS (needs sliding_window) | how many layers use the window           |
 * | bias                  | 0, 1 (default 0)                             | biases on every linear: q/k/v/o, router, |
 * |                       |                                              |   experts (gpt-oss)                      |
 * | glu_limit             | number > 0 (default none)                    | the experts' activation clamp: gpt-oss's |
 * |                       |                                              |   quick-GEGLU, gate <= L, linear in +-L, |
 * |                       |                                              |   (linear + 1) (GptOssConfig             |
 * |                       |                                              |   swiglu_limit)                          |
 * | attention             | MLA(q_lora=N,kv_lora=N,qk_nope=N,qk_rope=N,  | multi-head latent attention; q_lora 0 =  |
 * |                       |   v_head=N); GDN-hybrid(linear=N,full=M      |   no query LoRA. GDN-hybrid: Qwen3-Next's|
 * |                       |   [,k_heads=,v_heads=,k_dim=,v_dim=,conv=])  |   Gated DeltaNet + gated attention;      |
 * |                       |   , or any other NAME(...) / NAME            |   linear + full = n_layers, full divides |
 * |                       |                                              |   it. Another kind is kept by            |
 * |                       |                                              |   name in `attention_other` (the mapper  |
 * |                       |                                              |   skips it: not modelled)                |
 */
#pragma once

#include <glib.h>

#include "models/model.h"
#include "plan/plan.h"

G_BEGIN_DECLS

typedef enum {
  RES_PUB_DISPATCH_UNSTATED,
  RES_PUB_DISPATCH_ALLTOALL,
  RES_PUB_DISPATCH_ALLGATHER,
  RES_PUB_DISPATCH_DEEPEP,
  RES_PUB_DISPATCH_HYBRIDEP,
} ResPubDispatcher;

typedef enum {
  RES_PUB_ROUTING_UNSTATED,
  RES_PUB_ROUTING_FORCED,     /* --moe-router-force-load-balancing: every expert the mean */
  RES_PUB_ROUTING_DROPLESS,   /* learned routing, no token dropped */
} ResPubRouting;

typedef struct {
  gboolean         present;           /* the cell was not empty */
  guint64          experts, top_k, moe_ffn;
  guint64          shared_experts, shared_expert_ffn;
  guint64          dense_layers, dense_ffn;  /* dense_ffn 0: the row's ffn_hidden */
  guint64          etp;                      /* 0: not stated */
  guint64          moe_every;                /* moe_every=N: MoE every N-th layer after
                                              * the dense ones (Llama 4 Maverick 2); 0:
                                              * not stated, every layer */
  ResPubDispatcher dispatcher;
  ResPubRouting    routing;
  gboolean         forced_off;               /* said not forced (moe_router_force_load_
                                              * balancing=False, "no force load
                                              * balancing"): no forced balance read from
                                              * the row's text */
  gboolean         no_drop;                  /* said dropless (routing=dropless, a
                                              * "token-dropless" flag): no token drop read
                                              * from the row's text */
  double           capacity_factor;          /* 0: dropless / not stated */
  gboolean         pad_to_capacity;          /* pad=1: token drop and pad */
  /* Where res_pub_moe_read_row found a field the cell leaves unstated (static: "the ep
   * cell", "the notes", "the model cell"; NULL: the cell's own, or not stated) */
  const char      *etp_from, *routing_from, *drop_from, *every_from;
  guint64          etp_other;                /* an etp the ep cell or notes state that
                                              * differs from the cell's (which wins); 0 */
  const char      *etp_other_from;
  gboolean         a2a_overlap_1f1b;
  guint            cuda_graph_scope;         /* cuda_graph=: Transformer Engine CUDA graphs
                                              * of these PLAN_CG_* scopes; 0: none;
                                              * full_iteration: the local implementation's
                                              * graph of the whole step */
  gboolean         cuda_graph_layer;         /* cuda_graph=full: Transformer Engine graphs
                                              * of each whole layer (scope unset) */
  guint64          head_dim;                 /* 0: hidden / heads */
  guint64          mtp_layers;
  guint64          sliding_window, sliding_window_layers;
  gboolean         bias;                     /* biases on every linear (gpt-oss) */
  double           glu_limit;                /* 0: plain SwiGLU; gpt-oss 7 */
  gboolean         mla;
  guint64          q_lora, kv_lora, qk_nope, qk_rope, v_head;
  char            *attention_other;          /* a kind other than MLA, as written */
  /* GDN-hybrid(linear=N,full=M[,k_heads=,v_heads=,k_dim=,v_dim=,conv=]): Qwen3-Next's
   * Gated DeltaNet layers (gdn_linear > 0) with gated full attention every
   * (linear + full) / full layers; the head geometry defaults to Qwen3NextConfig's
   * (16 key / 32 value heads of 128, conv 4) */
  guint64          gdn_linear, gdn_full;
  guint64          gdn_k_heads, gdn_v_heads, gdn_k_dim, gdn_v_dim, gdn_conv;
  const char      *ep_from;                  /* "the notes" where res_pub_moe_ep_in_text
                                              * read the EP the ep cell leaves empty */
  const char      *dispatcher_from;          /* "the framework cell" / "the notes" where
                                              * res_pub_moe_dispatcher_in_text read it */
  const char      *arch_from;                /* "the notes" / "the model cell" where
                                              * res_pub_moe_arch_in_text read the shape;
                                              * NULL: the cell or a preset */
  const char      *preset;                   /* the shipped model preset the fields came
                                              * from where the row has no moe cell
                                              * (res_pub_moe_from_preset); NULL: the cell */
} ResPubMoe;

/* Parses `cell` into `out` (cleared first). FALSE with *why (g_free) when the cell is
 * refused; `out` is then cleared. */
gboolean    res_pub_moe_parse          (const char *cell, ResPubMoe *out, char **why);
void        res_pub_moe_clear          (ResPubMoe *moe);               /* frees, zeroes */
const char *res_pub_moe_dispatcher_name (ResPubDispatcher d);          /* "alltoall", ... */
/* Turns `*model`, the dense spec map_model built from the row's columns, into the MoE
 * model the cell describes (replacing *model). FALSE with *why (g_free) when it cannot:
 * the row is then skipped with that reason. */
/* A row's "selective (modules: ...)" recompute cell (dense or MoE): Megatron-Core's names set
 * plan->moe_recompute (core_attn: selective recompute) through
 * plan_recompute_modules_parse. FALSE with *why (g_free) for a name that is not one of
 * them: the row is then skipped with that reason. */
gboolean    res_pub_moe_recompute      (const char *cell, Plan *plan, char **why);
gboolean    res_pub_moe_apply          (const ResPubMoe *moe, ModelSpec **model, char **why);
/* The MoE options of the row's plan: ep (the row's `ep` column, 1 when empty), etp (the
 * cell's, else the plan's default: the attention TP, as Megatron-Core), the dispatcher
 * (deepep and hybridep -> the flex dispatcher, hybridep with its HybridEP backend), the
 * capacity factor, grouped GEMMs (every
 * source here runs --moe-grouped-gemm), and the imbalance: forced balance -> 1.0, else
 * the plan's documented default. A dense row gets only ep. */
void        res_pub_moe_plan           (const ResPubMoe *moe, gint64 ep, Plan *plan);
/* The layer split of a MoE row whose n_layers fit neither pp x vpp chunks evenly nor
 * with one layer fewer on the first and last chunk (published.c's rules), as the MoE
 * recipes lay DeepSeek-V3's 61 layers out: Megatron-Bridge
 * (recipes/deepseek/deepseek_v3.py, pipeline_model_parallel_layout) fills every chunk
 * with ceil(L / chunks) layers and puts the rest on the last (8 chunks: 8 x 7 + 5;
 * 16: 4 x 15 + 1); where that leaves none, Megatron-MoE-ModelZoo's "Et|(tt|)*30mL"
 * puts one layer on the first chunk, none on the last (MTP and loss only) and splits
 * the rest evenly (32 chunks: 1 + 30 x 2 + 0). TRUE with *first / *last (the layers of
 * the first and last model chunk) when one of the two applies. */
gboolean    res_pub_moe_layer_split    (guint64 layers, guint64 chunks, int *first, int *last);
/* The sentence holding `p` (inside `low`): from after the '.' or ';' before it to the
 * next one or the text's end, [*from, *to) (published-moe-text.c; the MoE readers and
 * published.c's sentence_has_any read sentences by it) */
void        res_pub_sentence_bounds    (const char *low, const char *p, const char **from,
                                        const char **to);
/* ---- MoE fields stated outside the moe cell (published-moe-text.c) ----
 * The moe cell's keys win; each reader's examples are in its comment there. */
/* Expert TP after its names in free text ("EP64, ETP1", "64 (expert TP 1)",
 * "expert_tensor_parallel_size=1", "--expert-tensor-parallel-size 1", "ETP 1"): the
 * size, 0 when none, -1 when the text states two different sizes. */
gint64      res_pub_moe_etp_in_text    (const char *text);
/* Forced-balance routing said ("force-balance the token distribution", "force load
 * balancing", "--moe-router-force-load-balancing", "moe_router_force_load_balancing=
 * True"): 1; said off ("without force load balancing", "...=False", "force balance:
 * no"): 0; -1 neither, -2 both. A table's label of one figure among others ("force
 * balanced vs. dropless: 335 / 277") or prose about other runs is neither. */
int         res_pub_moe_forced_in_text (const char *text);
/* Token dropping said as the run's own ("(tokendrop)", "token drop", "with token
 * dropping", "token drop at capacity factor 1.25"): 1 with *capacity (the factor stated,
 * else 1.0) and *pad (padding said; unsaid, TRUE only without a stated factor: NeMo's
 * token-drop defaults); said off ("token-dropless", "dropless", "no token drop"): 0; -1
 * neither or two factors; -2 both. Prose about other runs ("comparisons with token-drop
 * baselines") and a table's label of one figure are neither. */
int         res_pub_moe_token_drop_in_text (const char *text, double *capacity,
                                            gboolean *pad);
/* The MoE layer interval a text states (Llama 4 Maverick's alternating layers), in a
 * sentence that names MoE or experts: a config key with its value
 * ("interleave_moe_layer_step 2", "moe_layer_freq=2", "--moe-layer-freq 2"), or words
 * ("MoE in every second layer", "every other layer", "alternating dense and MoE layers",
 * "every 4th layer", "every 3 layers"); 2 and up, 0 where none (or a step of 1). */
gint64      res_pub_moe_every_in_text  (const char *text);
/* Fills what a present cell leaves unstated from the row's other cells, noting where
 * (etp_from, routing_from, drop_from, every_from): etp from the ep cell, else the notes;
 * forced routing and token drop from the model cell, else the notes (token drop only
 * where the cell says neither a capacity factor nor dropless: no_drop); the MoE layer
 * interval (moe_every) from the model cell, else the notes. An etp the text states that
 * differs from the cell's goes in etp_other. */
void        res_pub_moe_read_row       (ResPubMoe *moe, const char *ep_cell,
                                        const char *model_cell, const char *notes);
/* Where a plan whose etp is unstated (the TP degree) does not fold its experts onto a
 * stage's ranks: the largest etp below tp that would (e x ep divides tp x cp x dp, e
 * divides moe_ffn), for the skip's hint; 0 when none. */
int         res_pub_moe_etp_that_folds (const ResPubMoe *moe, const Plan *plan);

/* A row without a moe cell (the shared CSV has no such column) whose model cell names a
 * shipped mixture-of-experts preset, and whose hidden size, layers and heads are that
 * preset's: its MoE fields as a cell would state them (experts, top-k, expert widths,
 * shared experts, dense layers, the MoE layer interval, MLA, head_dim, gpt-oss's windows,
 * biases and clamp, Qwen3-Next's GDN layers), present TRUE and `preset` set; mtp_layers
 * 0 (Megatron trains no MTP module without --mtp-num-layers) and dispatcher, routing and
 * etp unstated, for res_pub_moe_read_row to read from the row's other cells. The names
 * (lower case, spaces and '_' read as '-'): deepseek-v3, deepseek-v2 (not "lite"),
 * qwen3-30b-a3b, qwen3-235b-a22b, qwen3-next-80b, qwen1.5-moe-a2.7b, gpt-oss-120b,
 * gpt-oss-20b, mixtral-8x7b, mixtral-8x22b, llama-4-scout / llama4-scout,
 * llama-4-maverick / llama4-maverick, kimi-k2, dbrx, olmoe (olmoe-1b-7b), glm-4.5 (not
 * "air"). FALSE (out cleared) where none is named or the
 * shape is not the preset's. */
gboolean    res_pub_moe_from_preset    (const char *model_cell, guint64 hidden,
                                        guint64 layers, guint64 heads, ResPubMoe *out);

/* An MoE's shape stated in free text, for a row with neither a moe cell nor a preset its
 * model cell names (Grok-1's "8 experts top-2", "num_experts=8, moe_router_topk=2"): the
 * routed experts (a count before "experts", "routed experts", or after num_experts /
 * n_routed_experts / num_local_experts), the top-k ("top-2", "top_k 2", "--moe-router-topk
 * 2", "num_experts_per_tok 2", "2 active experts", "2 experts per token"), the expert
 * width (moe_ffn, moe_intermediate_size, --moe-ffn-hidden-size; else `ffn_hidden`, one
 * expert's in Mixtral's and Grok's configs), shared experts ("1 shared expert",
 * n_shared_experts; each of the expert width) and first_k_dense_replace. Both the experts
 * and the top-k must be stated, once each (two different counts are no reading), and not
 * negated ("no experts"); FALSE with `out` cleared otherwise. */
gboolean    res_pub_moe_arch_in_text   (const char *text, guint64 ffn_hidden, ResPubMoe *out);

/* The expert-parallel size a text states after one of its names, for a row whose ep cell
 * is empty: "EP 8", "EP8", "ep=8", "expert parallel size 8", "expert parallelism 8",
 * "--expert-model-parallel-size 8", "expert_model_parallel_size: 8" ("ETP", "EDP" and
 * "DeepEP" are not its names), not in a sentence about other runs (a word of them, or
 * a GPU count other than the row's `gpus`: "The 1024-GPU run used EP 16"); 0 none, -1
 * two different sizes. */
gint64      res_pub_moe_ep_in_text     (const char *text, gint64 gpus);

/* The token dispatcher a text names: HybridEP ("HybridEP", "hybrid-ep"), else DeepEP
 * ("TE + DeepEP", "DeepEP"), else a Megatron config's moe_token_dispatcher_type alltoall /
 * allgather; not where negated ("without DeepEP"); UNSTATED where none. */
ResPubDispatcher res_pub_moe_dispatcher_in_text (const char *text);

/* One line: "256 experts top-8, 1 shared (2048), moe_ffn 2048, 3 dense layers, MLA". */
char       *res_pub_moe_describe       (const ResPubMoe *moe);

G_END_DECLS
