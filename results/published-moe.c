/* results/published-moe.c - the `moe` cell of a published row (the table and the
 * contract are in results/published-moe.h). */
#include "results/published-moe.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "models/model.h"
#include "plan/plan.h"

#define MOE_MAX_EXPERTS G_GUINT64_CONSTANT (65536)
#define MOE_MAX_MTP     G_GUINT64_CONSTANT (64)

void
res_pub_moe_clear (ResPubMoe *moe)
{
  g_free (moe->attention_other);
  memset (moe, 0, sizeof *moe);
}

const char *
res_pub_moe_dispatcher_name (ResPubDispatcher d)
{
  switch (d)
    {
    case RES_PUB_DISPATCH_ALLTOALL: return "alltoall";
    case RES_PUB_DISPATCH_ALLGATHER: return "allgather";
    case RES_PUB_DISPATCH_DEEPEP: return "deepep";
    case RES_PUB_DISPATCH_HYBRIDEP: return "hybridep";
    case RES_PUB_DISPATCH_UNSTATED: break;
    }
  return "not stated";
}

static gboolean G_GNUC_PRINTF (2, 3)
refuse (char **why, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  *why = g_strdup_printf ("moe: %s", msg);
  return FALSE;
}

/* A whole number in [lo, hi], the whole value (no trailing text). */
static gboolean
whole (const char *key, const char *value, guint64 lo, guint64 hi, guint64 *out, char **why)
{
  if (*value == '\0' || !g_ascii_isdigit (*value))
    return refuse (why, "%s '%s' is not a whole number (hint: %s=%" G_GUINT64_FORMAT ")",
                   key, value, key, lo > 0 ? lo : 1);
  char *end = NULL;
  errno = 0;
  guint64 v = g_ascii_strtoull (value, &end, 10);
  if (*end != '\0')
    return refuse (why, "%s '%s' is not a whole number", key, value);
  if (errno != 0 || v < lo || v > hi)
    return refuse (why, "%s %s is outside %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT,
                   key, value, lo, hi);
  *out = v;
  return TRUE;
}

/* MLA(q_lora=N,kv_lora=N,qk_nope=N,qk_rope=N,v_head=N): every field required; q_lora 0
 * means no query compression (DeepSeek-V2-Lite). */
static gboolean
parse_mla (const char *args, ResPubMoe *out, char **why)
{
  static const char *const names[] = { "q_lora", "kv_lora", "qk_nope", "qk_rope", "v_head" };
  guint64 *fields[] = { &out->q_lora, &out->kv_lora, &out->qk_nope, &out->qk_rope,
                        &out->v_head };
  gboolean seen[G_N_ELEMENTS (names)] = { FALSE };
  g_auto (GStrv) parts = g_strsplit (args, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *part = g_strstrip (parts[i]);
      char *eq = strchr (part, '=');
      if (eq == NULL)
        return refuse (why, "attention MLA field '%s' has no '=' (hint: "
                       "MLA(q_lora=1536,kv_lora=512,qk_nope=128,qk_rope=64,v_head=128))",
                       part);
      *eq = '\0';
      char *k = g_strstrip (part), *v = g_strstrip (eq + 1);
      guint j = 0;
      while (j < G_N_ELEMENTS (names) && strcmp (names[j], k) != 0)
        j++;
      if (j == G_N_ELEMENTS (names))
        return refuse (why, "attention MLA field '%s' unknown (known: q_lora, kv_lora, "
                       "qk_nope, qk_rope, v_head)", k);
      if (seen[j])
        return refuse (why, "attention MLA field %s given twice", k);
      seen[j] = TRUE;
      g_autofree char *label = g_strdup_printf ("MLA %s", k);
      if (!whole (label, v, j == 0 ? 0 : 1, j == 0 || j == 1 ? MODEL_MAX_FFN : MODEL_MAX_HEADS,
                  fields[j], why))
        return FALSE;
    }
  for (guint j = 0; j < G_N_ELEMENTS (names); j++)
    if (!seen[j])
      return refuse (why, "attention MLA(...) lacks %s", names[j]);
  out->mla = TRUE;
  return TRUE;
}

/* GDN-hybrid(linear=N,full=M[,k_heads=N,v_heads=N,k_dim=N,v_dim=N,conv=N]): linear and
 * full required; the head geometry defaults to Qwen3NextConfig's (transformers
 * configuration_qwen3_next.py: linear_num_key_heads 16, linear_num_value_heads 32,
 * linear_key_head_dim and linear_value_head_dim 128, linear_conv_kernel_dim 4). */
static gboolean
parse_gdn (const char *args, ResPubMoe *out, char **why)
{
  static const char *const names[] = { "linear", "full", "k_heads", "v_heads", "k_dim",
                                       "v_dim", "conv" };
  guint64 *fields[] = { &out->gdn_linear, &out->gdn_full, &out->gdn_k_heads,
                        &out->gdn_v_heads, &out->gdn_k_dim, &out->gdn_v_dim, &out->gdn_conv };
  const guint64 hi[] = { MODEL_MAX_LAYERS, MODEL_MAX_LAYERS, MODEL_MAX_HEADS, MODEL_MAX_HEADS,
                         MODEL_MAX_HEADS, MODEL_MAX_HEADS, 64 };
  gboolean seen[G_N_ELEMENTS (names)] = { FALSE };
  out->gdn_k_heads = 16;
  out->gdn_v_heads = 32;
  out->gdn_k_dim = out->gdn_v_dim = 128;
  out->gdn_conv = 4;
  g_auto (GStrv) parts = g_strsplit (args, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *part = g_strstrip (parts[i]);
      char *eq = strchr (part, '=');
      if (eq == NULL)
        return refuse (why, "attention GDN-hybrid field '%s' has no '=' (hint: "
                       "GDN-hybrid(linear=36,full=12))", part);
      *eq = '\0';
      char *k = g_strstrip (part), *v = g_strstrip (eq + 1);
      guint j = 0;
      while (j < G_N_ELEMENTS (names) && strcmp (names[j], k) != 0)
        j++;
      if (j == G_N_ELEMENTS (names))
        return refuse (why, "attention GDN-hybrid field '%s' unknown (known: linear, full, "
                       "k_heads, v_heads, k_dim, v_dim, conv)", k);
      if (seen[j])
        return refuse (why, "attention GDN-hybrid field %s given twice", k);
      seen[j] = TRUE;
      g_autofree char *label = g_strdup_printf ("GDN-hybrid %s", k);
      if (!whole (label, v, 1, hi[j], fields[j], why))
        return FALSE;
    }
  if (!seen[0] || !seen[1])
    return refuse (why, "attention GDN-hybrid(...) lacks %s (hint: "
                   "GDN-hybrid(linear=36,full=12))", !seen[0] ? "linear" : "full");
  if (out->gdn_v_heads % out->gdn_k_heads != 0)
    return refuse (why, "attention GDN-hybrid k_heads %" G_GUINT64_FORMAT " does not divide "
                   "v_heads %" G_GUINT64_FORMAT, out->gdn_k_heads, out->gdn_v_heads);
  return TRUE;
}

static gboolean
parse_attention (const char *value, ResPubMoe *out, char **why)
{
  const char *open = strchr (value, '(');
  size_t len = strlen (value);
  if (open != NULL && (len == 0 || value[len - 1] != ')'))
    return refuse (why, "attention '%s' has no closing ')'", value);
  g_autofree char *kind = open != NULL ? g_strndup (value, (gsize) (open - value))
                                       : g_strdup (value);
  g_strstrip (kind);
  if (*kind == '\0')
    return refuse (why, "attention has no kind (hint: attention=MLA(...))");
  if (g_ascii_strcasecmp (kind, "MLA") == 0)
    {
      if (open == NULL)
        return refuse (why, "attention MLA needs its ranks (hint: "
                       "MLA(q_lora=1536,kv_lora=512,qk_nope=128,qk_rope=64,v_head=128))");
      g_autofree char *args = g_strndup (open + 1, (gsize) (value + len - 1 - (open + 1)));
      return parse_mla (args, out, why);
    }
  if (g_ascii_strcasecmp (kind, "GDN-hybrid") == 0)
    {
      if (open == NULL)
        return refuse (why, "attention GDN-hybrid needs its layer counts (hint: "
                       "GDN-hybrid(linear=36,full=12))");
      g_autofree char *args = g_strndup (open + 1, (gsize) (value + len - 1 - (open + 1)));
      return parse_gdn (args, out, why);
    }
  out->attention_other = g_strdup (value);
  return TRUE;
}

/* The keys the frameworks' own configs use for a cell key (the cell's name wins in
 * messages about repeats): Megatron-Core's expert_tensor_parallel_size,
 * moe_expert_capacity_factor, moe_pad_expert_input_to_capacity and
 * moe_router_force_load_balancing, Hugging Face Llama4TextConfig's
 * interleave_moe_layer_step */
static const char *
canonical_key (const char *key)
{
  static const struct { const char *alias, *key; } aliases[] = {
    { "expert_tensor_parallel_size", "etp" },
    { "interleave_moe_layer_step", "moe_every" },
    { "moe_expert_capacity_factor", "capacity_factor" },
    { "moe_pad_expert_input_to_capacity", "pad" },
    { "pad_to_capacity", "pad" },
    { "moe_router_force_load_balancing", "routing" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (aliases); i++)
    if (strcmp (key, aliases[i].alias) == 0)
      return aliases[i].key;
  return key;
}

/* A config's boolean: 1 / true -> 1, 0 / false -> 0 (any case), else -1 */
static int
config_bool (const char *value)
{
  if (strcmp (value, "1") == 0 || g_ascii_strcasecmp (value, "true") == 0)
    return 1;
  if (strcmp (value, "0") == 0 || g_ascii_strcasecmp (value, "false") == 0)
    return 0;
  return -1;
}

/* A pair without '=' that says how the run routed, as the Megatron-Bridge tables and
 * NeMo's labels write it (published-moe-text.c readers): forced balance ("force load
 * balancing", "force-balance", "--moe-router-force-load-balancing") -> routing forced,
 * said off -> forced_off; token drop ("tokendrop", "(tokendrop)", "token drop") ->
 * capacity_factor 1 and pad 1, NeMo's token-drop defaults, or the factor the pair
 * states; "dropless" / "token-dropless" -> no_drop. FALSE when the pair says none of
 * these (then it is no key=value, as before), repeats a key, or says one both ways
 * ("force balance, force balance: no"; "token drop, dropless"). */
static gboolean
flag_pair (const char *pair, ResPubMoe *out, GHashTable *seen, char **why, gboolean *known)
{
  const int forced = res_pub_moe_forced_in_text (pair);
  double cf = 0;
  gboolean pad = FALSE;
  const int drop = res_pub_moe_token_drop_in_text (pair, &cf, &pad);
  *known = forced >= 0 || drop >= 0 || forced == -2 || drop == -2;
  if (forced == -2)
    return refuse (why, "'%s' says forced balance and not: they contradict", pair);
  if (drop == -2)
    return refuse (why, "'%s' says token drop and dropless: they contradict", pair);
  if (forced >= 0)
    {
      if (g_hash_table_contains (seen, "routing"))
        return refuse (why, "routing given twice ('%s')", pair);
      g_hash_table_add (seen, g_strdup ("routing"));
      if (forced == 1)
        out->routing = RES_PUB_ROUTING_FORCED;
      else
        out->forced_off = TRUE;
    }
  if (drop == 1)
    {
      if (g_hash_table_contains (seen, "capacity_factor"))
        return refuse (why, "capacity_factor given twice ('%s')", pair);
      g_hash_table_add (seen, g_strdup ("capacity_factor"));
      g_hash_table_add (seen, g_strdup ("pad"));
      out->capacity_factor = cf;
      out->pad_to_capacity = pad;
    }
  else if (drop == 0)
    out->no_drop = TRUE;
  return TRUE;
}

gboolean
res_pub_moe_parse (const char *cell, ResPubMoe *out, char **why)
{
  g_return_val_if_fail (cell != NULL && out != NULL && why != NULL, FALSE);
  memset (out, 0, sizeof *out);
  *why = NULL;
  g_autofree char *text = g_strstrip (g_strdup (cell));
  if (*text == '\0')
    return TRUE;
  out->present = TRUE;

  gboolean has_experts = FALSE, has_top_k = FALSE, has_moe_ffn = FALSE;
  gboolean has_shared_ffn = FALSE, has_window_layers = FALSE, tokendrop = FALSE;
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto (GStrv) pairs = g_strsplit (text, ";", -1);
  gboolean ok = TRUE;
  for (guint i = 0; ok && pairs[i] != NULL; i++)
    {
      char *pair = g_strstrip (pairs[i]);
      if (*pair == '\0')
        {
          if (pairs[i + 1] == NULL)
            break;                          /* the trailing ';' */
          ok = refuse (why, "empty pair before ';' number %u", i + 1);
          break;
        }
      char *eq = strchr (pair, '=');
      gboolean known = FALSE;
      if (eq == NULL)
        {
          ok = flag_pair (pair, out, seen, why, &known);
          if (ok && !known)
            ok = refuse (why, "'%s' is not key=value", pair);
          if (!ok)
            break;
          continue;
        }
      *eq = '\0';
      char *written = g_strstrip (pair), *value = g_strstrip (eq + 1);
      const char *key = canonical_key (written);
      if (g_hash_table_contains (seen, key))
        {
          ok = refuse (why, "%s given twice", key);
          break;
        }
      g_hash_table_add (seen, g_strdup (key));

      if (strcmp (key, "experts") == 0)
        ok = has_experts = whole (key, value, 1, MOE_MAX_EXPERTS, &out->experts, why);
      else if (strcmp (key, "top_k") == 0)
        ok = has_top_k = whole (key, value, 1, MOE_MAX_EXPERTS, &out->top_k, why);
      else if (strcmp (key, "moe_ffn") == 0)
        ok = has_moe_ffn = whole (key, value, 1, MODEL_MAX_FFN, &out->moe_ffn, why);
      else if (strcmp (key, "shared_experts") == 0)
        ok = whole (key, value, 0, MOE_MAX_EXPERTS, &out->shared_experts, why);
      else if (strcmp (key, "shared_expert_ffn") == 0)
        ok = has_shared_ffn = whole (key, value, 1, MODEL_MAX_FFN, &out->shared_expert_ffn,
                                     why);
      else if (strcmp (key, "dense_layers") == 0)
        ok = whole (key, value, 0, MODEL_MAX_LAYERS, &out->dense_layers, why);
      else if (strcmp (key, "dense_ffn") == 0)
        ok = whole (key, value, 1, MODEL_MAX_FFN, &out->dense_ffn, why);
      else if (strcmp (key, "etp") == 0)
        ok = whole (written, value, 1, PLAN_MAX_WORLD, &out->etp, why);
      else if (strcmp (key, "moe_every") == 0)
        ok = whole (written, value, 1, MODEL_MAX_LAYERS, &out->moe_every, why);
      else if (strcmp (key, "head_dim") == 0)
        ok = whole (key, value, 1, MODEL_MAX_HEADS, &out->head_dim, why);
      else if (strcmp (key, "mtp_layers") == 0)
        ok = whole (key, value, 0, MOE_MAX_MTP, &out->mtp_layers, why);
      else if (strcmp (key, "sliding_window") == 0)
        ok = whole (key, value, 1, MODEL_MAX_POSITIONS, &out->sliding_window, why);
      else if (strcmp (key, "sliding_window_layers") == 0)
        ok = has_window_layers = whole (key, value, 1, MODEL_MAX_LAYERS,
                                        &out->sliding_window_layers, why);
      else if (strcmp (key, "dispatcher") == 0)
        {
          static const struct { const char *name; ResPubDispatcher d; } ds[] = {
            { "alltoall", RES_PUB_DISPATCH_ALLTOALL }, { "allgather", RES_PUB_DISPATCH_ALLGATHER },
            { "deepep", RES_PUB_DISPATCH_DEEPEP }, { "hybridep", RES_PUB_DISPATCH_HYBRIDEP },
          };
          guint j = 0;
          while (j < G_N_ELEMENTS (ds) && g_ascii_strcasecmp (ds[j].name, value) != 0)
            j++;
          if (j == G_N_ELEMENTS (ds))
            ok = refuse (why, "dispatcher '%s' unknown (known: alltoall, allgather, deepep, "
                         "hybridep)", value);
          else
            out->dispatcher = ds[j].d;
        }
      else if (strcmp (key, "routing") == 0 && strcmp (written, key) != 0)
        {
          /* moe_router_force_load_balancing=True / False */
          int b = config_bool (value);
          if (b < 0)
            ok = refuse (why, "%s '%s' is not True or False", written, value);
          else if (b == 1)
            out->routing = RES_PUB_ROUTING_FORCED;
          else
            out->forced_off = TRUE;
        }
      else if (strcmp (key, "routing") == 0)
        {
          if (g_ascii_strcasecmp (value, "forced") == 0)
            out->routing = RES_PUB_ROUTING_FORCED;
          else if (g_ascii_strcasecmp (value, "dropless") == 0)
            {
              out->routing = RES_PUB_ROUTING_DROPLESS;
              out->no_drop = TRUE;
            }
          /* the Megatron-Bridge tables' "(tokendrop)" label as the key's value: token
           * drop at NeMo's defaults (capacity factor 1.0, padded: MegatronTokenDropCallback)
           * unless the cell states a capacity factor, applied after the loop */
          else if (g_ascii_strcasecmp (value, "tokendrop") == 0
                   || g_ascii_strcasecmp (value, "token_drop") == 0
                   || g_ascii_strcasecmp (value, "token-drop") == 0)
            tokendrop = TRUE;
          else
            ok = refuse (why, "routing '%s' unknown (known: forced, dropless, tokendrop)",
                         value);
        }
      else if (strcmp (key, "a2a_overlap") == 0)
        {
          if (g_ascii_strcasecmp (value, "1f1b") == 0)
            out->a2a_overlap_1f1b = TRUE;
          else if (g_ascii_strcasecmp (value, "none") != 0)
            ok = refuse (why, "a2a_overlap '%s' unknown (known: none, 1f1b)", value);
        }
      else if (strcmp (key, "cuda_graph") == 0)
        {
          /* scopes joined by '+' (the cell's ',' would end nothing, but reads better
           * apart from the MLA list); full_iteration is the local implementation's
           * graph of the whole step (Megatron-Core's FullCudaGraphWrapper,
           * --cuda-graph-impl local), alone; "full" is Megatron-LM's older scope name
           * for Transformer Engine graphs of each whole layer (the plan's default scope).
           * full_iteration was refused, where the refusal of "full" hinted at it (audit
           * of 7 Dec) */
          g_autofree char *list = g_strdelimit (g_strdup (value), "+", ',');
          Plan tmp = { 0 };
          g_autoptr (GError) err = NULL;
          if (g_ascii_strcasecmp (value, "full") == 0)
            out->cuda_graph_layer = TRUE;
          else if (g_ascii_strcasecmp (value, "none") == 0)
            ;   /* said off: no graphs (it was refused as an unknown scope) */
          else if (!plan_cuda_graph_scope_parse (list, &tmp, &err))
            ok = refuse (why, "cuda_graph '%s': %s (or full: each whole layer)", value,
                         err->message);
          else if ((tmp.cuda_graph_scope & PLAN_CG_FULL_ITERATION)
                   && tmp.cuda_graph_scope != PLAN_CG_FULL_ITERATION)
            ok = refuse (why, "cuda_graph '%s': full_iteration is the local implementation's "
                         "graph of the whole step and takes no other scope beside it "
                         "(hint: cuda_graph=full_iteration)", value);
          else
            out->cuda_graph_scope = tmp.cuda_graph_scope;
        }
      else if (strcmp (key, "capacity_factor") == 0)
        {
          char *end = NULL;
          double v = *value != '\0' ? g_ascii_strtod (value, &end) : NAN;
          if (end == NULL || *end != '\0' || !isfinite (v) || v <= 0 || v > 1000)
            ok = refuse (why, "%s '%s' must be a number above 0 and at most 1000", written,
                         value);
          else
            out->capacity_factor = v;
        }
      else if (strcmp (key, "pad") == 0 && strcmp (written, key) != 0)
        {
          int b = config_bool (value);
          if (b < 0)
            ok = refuse (why, "%s '%s' is not True or False", written, value);
          out->pad_to_capacity = b == 1;
        }
      else if (strcmp (key, "pad") == 0)
        {
          guint64 v = 0;
          ok = whole (key, value, 0, 1, &v, why);
          out->pad_to_capacity = v == 1;
        }
      else if (strcmp (key, "attention") == 0)
        ok = parse_attention (value, out, why);
      else if (strcmp (key, "bias") == 0)
        {
          guint64 v = 0;
          ok = whole (key, value, 0, 1, &v, why);
          out->bias = v == 1;
        }
      else if (strcmp (key, "glu_limit") == 0)
        {
          char *end = NULL;
          double v = *value != '\0' ? g_ascii_strtod (value, &end) : NAN;
          if (end == NULL || *end != '\0' || !isfinite (v) || v <= 0 || v > 1e6)
            ok = refuse (why, "glu_limit '%s' must be a number above 0 (gpt-oss: 7)", value);
          else
            out->glu_limit = v;
        }
      else
        ok = refuse (why, "unknown key '%s' (known: experts, top_k, moe_ffn, shared_experts, "
                     "shared_expert_ffn, dense_layers, dense_ffn, moe_every, etp, dispatcher, "
                     "routing, "
                     "capacity_factor, pad (or pad_to_capacity), a2a_overlap, cuda_graph, head_dim, mtp_layers, "
                     "sliding_window, "
                     "sliding_window_layers, attention, bias, glu_limit)", key);
    }

  if (ok && tokendrop)
    {
      if (out->no_drop)
        ok = refuse (why, "routing=tokendrop and dropless contradict (hint: keep the one the "
                     "run used)");
      else if (!(out->capacity_factor > 0))
        {
          out->capacity_factor = 1.0;
          out->pad_to_capacity = TRUE;
        }
    }
  /* "routing=dropless;token drop", "token drop;dropless", "capacity_factor=1.25;dropless":
   * a capacity drops tokens, dropless none (they were accepted, the capacity read) */
  if (ok && out->no_drop && out->capacity_factor > 0)
    ok = refuse (why, "token drop (capacity factor %g) and dropless routing contradict (hint: "
                 "keep the one the run used)", out->capacity_factor);
  if (ok && !has_experts)
    ok = refuse (why, "experts is required (hint: experts=8;top_k=2;moe_ffn=14336)");
  if (ok && out->pad_to_capacity && !(out->capacity_factor > 0))
    ok = refuse (why, "pad=1 without capacity_factor (token drop and pad pads each expert to "
                 "its capacity)");
  if (ok && !has_top_k)
    ok = refuse (why, "top_k is required");
  if (ok && !has_moe_ffn)
    ok = refuse (why, "moe_ffn is required (the FFN hidden size of one routed expert)");
  if (ok && out->top_k > out->experts)
    ok = refuse (why, "top_k %" G_GUINT64_FORMAT " exceeds the %" G_GUINT64_FORMAT
                 " experts", out->top_k, out->experts);
  if (ok && has_shared_ffn && out->shared_experts == 0)
    ok = refuse (why, "shared_expert_ffn without shared_experts (hint: shared_experts=1)");
  if (ok && has_window_layers && out->sliding_window == 0)
    ok = refuse (why, "sliding_window_layers without sliding_window");
  if (ok && out->sliding_window > 0 && !has_window_layers)
    ok = refuse (why, "sliding_window without sliding_window_layers (how many layers use it)");
  if (ok && out->shared_experts > 0 && !has_shared_ffn)
    out->shared_expert_ffn = out->shared_experts * out->moe_ffn;
  if (!ok)
    {
      res_pub_moe_clear (out);
      return FALSE;
    }
  return TRUE;
}

char *
res_pub_moe_describe (const ResPubMoe *moe)
{
  if (!moe->present)
    return g_strdup ("dense");
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%" G_GUINT64_FORMAT " experts top-%" G_GUINT64_FORMAT
                          ", moe_ffn %" G_GUINT64_FORMAT, moe->experts, moe->top_k,
                          moe->moe_ffn);
  if (moe->shared_experts > 0)
    g_string_append_printf (s, ", %" G_GUINT64_FORMAT " shared (ffn %" G_GUINT64_FORMAT ")",
                            moe->shared_experts, moe->shared_expert_ffn);
  if (moe->dense_layers > 0)
    g_string_append_printf (s, ", %" G_GUINT64_FORMAT " dense layers", moe->dense_layers);
  if (moe->moe_every > 1)
    g_string_append_printf (s, ", MoE every %" G_GUINT64_FORMAT " layers (the others dense%s%s)",
                            moe->moe_every, moe->every_from != NULL ? "; from " : "",
                            moe->every_from != NULL ? moe->every_from : "");
  if (moe->mla)
    g_string_append_printf (s, ", MLA (q_lora %" G_GUINT64_FORMAT ", kv_lora %"
                            G_GUINT64_FORMAT ")", moe->q_lora, moe->kv_lora);
  else if (moe->gdn_linear > 0)
    g_string_append_printf (s, ", GDN hybrid (%" G_GUINT64_FORMAT " linear, %"
                            G_GUINT64_FORMAT " full)", moe->gdn_linear, moe->gdn_full);
  else if (moe->attention_other != NULL)
    g_string_append_printf (s, ", attention %s", moe->attention_other);
  if (moe->mtp_layers > 0)
    g_string_append_printf (s, ", %" G_GUINT64_FORMAT " MTP", moe->mtp_layers);
  if (moe->bias)
    g_string_append (s, ", biases");
  /* a field read from another cell of the row (res_pub_moe_read_row) says which */
  if (moe->etp > 0)
    g_string_append_printf (s, ", etp %" G_GUINT64_FORMAT "%s%s%s", moe->etp,
                            moe->etp_from != NULL ? " (from " : "",
                            moe->etp_from != NULL ? moe->etp_from : "",
                            moe->etp_from != NULL ? ")" : "");
  if (moe->dispatcher != RES_PUB_DISPATCH_UNSTATED)
    g_string_append_printf (s, ", %s%s%s%s", res_pub_moe_dispatcher_name (moe->dispatcher),
                            moe->dispatcher_from != NULL ? " (from " : "",
                            moe->dispatcher_from != NULL ? moe->dispatcher_from : "",
                            moe->dispatcher_from != NULL ? ")" : "");
  if (moe->routing != RES_PUB_ROUTING_UNSTATED)
    g_string_append_printf (s, "%s%s%s%s",
                            moe->routing == RES_PUB_ROUTING_FORCED ? ", forced balance"
                                                                   : ", dropless",
                            moe->routing_from != NULL ? " (from " : "",
                            moe->routing_from != NULL ? moe->routing_from : "",
                            moe->routing_from != NULL ? ")" : "");
  if (moe->capacity_factor > 0)
    g_string_append_printf (s, ", capacity factor %g%s%s%s%s", moe->capacity_factor,
                            moe->pad_to_capacity ? " padded (no host sync)" : "",
                            moe->drop_from != NULL ? " (token drop, from " : "",
                            moe->drop_from != NULL ? moe->drop_from : "",
                            moe->drop_from != NULL ? ")" : "");
  /* what else the cell sets that moves the prediction: the EP all-to-all overlapped
   * across micro-batches, CUDA-graph scopes */
  if (moe->a2a_overlap_1f1b)
    g_string_append (s, ", EP all-to-all overlapped (1F1B)");
  if (moe->cuda_graph_layer)
    g_string_append (s, ", CUDA graphs (each whole layer)");
  if (moe->cuda_graph_scope != 0)
    {
      g_autofree char *cg = plan_cuda_graph_scope_string (moe->cuda_graph_scope);
      g_string_append_printf (s, ", CUDA graphs (%s)", cg);
    }
  return g_string_free (s, FALSE);
}

gboolean
res_pub_moe_apply (const ResPubMoe *moe, ModelSpec **model, char **why)
{
  g_return_val_if_fail (moe != NULL && model != NULL && *model != NULL && why != NULL, FALSE);
  *why = NULL;
  ModelSpec *m = *model;
  if (moe->attention_other != NULL)
    {
      *why = g_strdup_printf ("mixture of experts: attention '%s' is not modelled (only "
                              "standard attention, MLA and GDN-hybrid)", moe->attention_other);
      return FALSE;
    }
  /* The checks that need the row's columns (the parser's contract leaves them here). */
  if (moe->experts > MODEL_MAX_EXPERTS || moe->experts * moe->moe_ffn > MODEL_MAX_EXPERT_WIDTH)
    {
      *why = g_strdup_printf ("refused: moe: experts x moe_ffn = %" G_GUINT64_FORMAT " x %"
                              G_GUINT64_FORMAT " is above the model caps (%" G_GUINT64_FORMAT
                              " experts, %" G_GUINT64_FORMAT " wide)", moe->experts,
                              moe->moe_ffn, MODEL_MAX_EXPERTS, MODEL_MAX_EXPERT_WIDTH);
      return FALSE;
    }
  if (moe->dense_layers >= m->n_layers)
    {
      *why = g_strdup_printf ("refused: moe: dense_layers %" G_GUINT64_FORMAT " leaves no MoE "
                              "layer of the %" G_GUINT64_FORMAT, moe->dense_layers,
                              m->n_layers);
      return FALSE;
    }
  /* GDN-hybrid: linear + full layers are the row's, full attention every L / full */
  if (moe->gdn_linear > 0
      && (moe->gdn_linear + moe->gdn_full != m->n_layers || m->n_layers % moe->gdn_full != 0))
    {
      *why = g_strdup_printf ("refused: moe: GDN-hybrid linear %" G_GUINT64_FORMAT " + full %"
                              G_GUINT64_FORMAT " is not the %" G_GUINT64_FORMAT " layers "
                              "with full attention every n-th layer", moe->gdn_linear,
                              moe->gdn_full, m->n_layers);
      return FALSE;
    }
  /* moe_every=N: layer i (after the dense ones) is MoE when (i - dense + 1) % N == 0
   * (models/model.h moe_layer_step), so at least N layers must follow the dense ones */
  if (moe->moe_every > 1 && (m->n_layers - moe->dense_layers) / moe->moe_every == 0)
    {
      *why = g_strdup_printf ("refused: moe: moe_every %" G_GUINT64_FORMAT " leaves no MoE "
                              "layer of the %" G_GUINT64_FORMAT " after the %" G_GUINT64_FORMAT
                              " dense ones", moe->moe_every, m->n_layers - moe->dense_layers,
                              moe->dense_layers);
      return FALSE;
    }
  if (moe->sliding_window_layers > m->n_layers)
    {
      *why = g_strdup_printf ("refused: moe: sliding_window_layers %" G_GUINT64_FORMAT
                              " exceeds the %" G_GUINT64_FORMAT " layers",
                              moe->sliding_window_layers, m->n_layers);
      return FALSE;
    }

  /* A private copy: the dense spec map_model built is this case's only reference. */
  g_return_val_if_fail (m->ref_count == 1, FALSE);
  m->n_experts = moe->experts;
  m->moe_top_k = moe->top_k;
  m->moe_ffn = moe->moe_ffn;
  m->n_shared_experts = moe->shared_experts;
  m->shared_expert_ffn = moe->shared_expert_ffn;
  m->first_dense_layers = moe->dense_layers;
  m->moe_layer_step = moe->moe_every > 0 ? moe->moe_every : 1;
  if (moe->dense_ffn > 0)
    m->ffn_hidden = moe->dense_ffn;
  /* every published MoE here gates its experts (SwiGLU): Mixtral, DeepSeek, Qwen-MoE,
   * gpt-oss (its own clamped SwiGLU) */
  m->mlp = MODEL_MLP_SWIGLU;
  m->tied_embeddings = FALSE;
  /* routers: DeepSeek-V3 sigmoid scores with the aux-loss-free bias (config scoring_func
   * "sigmoid", topk_method "noaux_tc"), the others softmax */
  m->router_score = moe->mla ? MODEL_ROUTER_SIGMOID : MODEL_ROUTER_SOFTMAX;
  m->router_bias = moe->mla;
  m->router_norm_topk = TRUE;
  if (moe->head_dim > 0)
    m->head_dim = moe->head_dim;
  if (moe->mla)
    {
      m->q_lora_rank = moe->q_lora;
      m->kv_lora_rank = moe->kv_lora;
      m->qk_nope_head_dim = moe->qk_nope;
      m->qk_rope_head_dim = moe->qk_rope;
      m->v_head_dim = moe->v_head;
      m->head_dim = moe->qk_nope + moe->qk_rope;
      m->n_kv_heads = m->n_heads;
    }
  m->mtp_layers = moe->mtp_layers;
  /* gpt-oss: 128-token windows on every other layer (counted in the FLOP conventions and
   * timed as windows by the step program, plan/program-blocks.c attention) */
  m->sliding_window = moe->sliding_window;
  m->n_sliding_layers = moe->sliding_window_layers;
  /* gpt-oss (GptOssConfig attention_bias, its experts' and router's biases): the biases
   * of every linear, as models/model-load.c read_gpt_oss sets them */
  if (moe->bias)
    m->attn_bias = m->mlp_bias = m->router_bias = TRUE;
  /* gpt-oss's clamped quick-GEGLU (GptOssConfig swiglu_limit, models/model.h glu_limit) */
  m->glu_limit = moe->glu_limit;
  if (moe->gdn_linear > 0)
    {
      /* Qwen3-Next (the one GDN-hybrid published here): its full-attention layers gated
       * with partial rotary 0.25 and q/k norms, its shared expert behind a sigmoid gate
       * (transformers modular_qwen3_next.py) */
      m->full_attn_interval = m->n_layers / moe->gdn_full;
      m->gdn_k_heads = moe->gdn_k_heads;
      m->gdn_v_heads = moe->gdn_v_heads;
      m->gdn_k_dim = moe->gdn_k_dim;
      m->gdn_v_dim = moe->gdn_v_dim;
      m->gdn_conv = moe->gdn_conv;
      m->attn_output_gate = TRUE;
      m->rotary_fraction = 0.25;
      m->qk_norm = TRUE;
      m->shared_expert_gate = moe->shared_experts > 0;
    }
  g_autofree char *problem = model_moe_problem (m);
  if (problem != NULL)
    {
      *why = g_strdup_printf ("refused: moe: %s", problem);
      return FALSE;
    }
  return TRUE;
}

gboolean
res_pub_moe_layer_split (guint64 layers, guint64 chunks, int *first, int *last)
{
  if (chunks < 2 || layers < chunks || layers > MODEL_MAX_LAYERS)
    return FALSE;
  guint64 k = (layers + chunks - 1) / chunks;          /* ceil */
  if (k * (chunks - 1) < layers)
    {
      /* full chunks of k, the rest (1..k) on the last */
      *first = (int) k;
      *last = (int) (layers - k * (chunks - 1));
      return TRUE;
    }
  if (chunks >= 3 && (layers - 1) % (chunks - 2) == 0)
    {
      *first = 1;
      *last = 0;
      return TRUE;
    }
  return FALSE;
}

gboolean
res_pub_moe_recompute (const char *cell, Plan *plan, char **why)
{
  /* "modules: a, b", or Megatron's own flag as a run's command quotes it
   * ("--recompute-modules mlp moe_act", "--recompute-modules=mlp,moe_act",
   * "recompute_modules: [mlp, moe_act]"): the list runs to a ')', ';', ']' or the next
   * "--" flag (the flag forms read as no modules at all, the row's recompute none) */
  static const char *const keys[] = { "modules:", "--recompute-modules", "recompute_modules",
                                      "recompute-modules" };
  const char *m = NULL;
  gsize key = 0;
  for (guint i = 0; cell != NULL && i < G_N_ELEMENTS (keys) && m == NULL; i++)
    if ((m = strstr (cell, keys[i])) != NULL)
      key = strlen (keys[i]);
  *why = NULL;
  if (m == NULL)
    return TRUE;
  const char *from = m + key;
  while (*from == ' ' || *from == '=' || *from == ':' || *from == '[')
    from++;
  const gboolean flag = key != strlen ("modules:");
  g_autofree char *list = g_strdup (from);
  for (char *e = list; *e != '\0'; e++)
    if (*e == ')' || *e == ';' || *e == ']' || (flag && *e == '(')
        || (e[0] == '-' && e[1] == '-'))
      {
        *e = '\0';
        break;
      }
  /* "up_proj": the MLA up-projection, Megatron's mla_up_proj (NVIDIA's DeepSeek-V3
   * GB200 write-up spells it so). After the flag the list is its module names up to the
   * first word that is none ("--recompute-modules not used", "... unset", "... n/a",
   * "... default (core_attn)", a trailing '.'): prose after a flag is no module (it
   * refused the row); a "modules:" list keeps every name, an unknown one refused.
   * Names are split also at quotes, '/', '+' and '&': a Python or YAML list quotes them
   * ('recompute_modules=["mlp", "layernorm"]', "recompute_modules: ['core_attn', 'mlp']"),
   * a shell command quotes the flag's list ('--recompute-modules "mlp layernorm"'), and
   * prose joins two names ("mlp/layernorm", "mlp & layernorm"). The quoted forms read as
   * no modules or were refused naming "'core_attn'" with its quotes; "mlp/layernorm" was
   * not recognised and "mlp & layernorm" read as mlp alone. */
  g_auto (GStrv) names = g_strsplit_set (list, ", \"'/+&", -1);
  GPtrArray *kept = g_ptr_array_new ();
  for (guint i = 0; names[i] != NULL; i++)
    {
      char *n = names[i];
      if (*n == '\0')
        continue;
      if (flag)
        {
          gsize len = strlen (n);
          while (len > 0 && (n[len - 1] == '.' || n[len - 1] == ','))
            n[--len] = '\0';
        }
      if (g_str_equal (n, "up_proj"))
        n = (char *) "mla_up_proj";
      /* "mlp and layernorm": the conjunction joins two names */
      if (flag && g_str_equal (n, "and"))
        continue;
      if (flag)
        {
          Plan scratch = { 0 };
          if (!plan_recompute_modules_parse (n, &scratch, NULL))
            break;
        }
      g_ptr_array_add (kept, n);
    }
  g_ptr_array_add (kept, NULL);
  g_free (list);
  list = g_strjoinv (",", (char **) kept->pdata);
  g_ptr_array_free (kept, TRUE);
  g_autoptr (GError) error = NULL;
  if (!plan_recompute_modules_parse (list, plan, &error))
    {
      *why = g_strdup_printf ("recompute: %s", error->message);
      return FALSE;
    }
  return TRUE;
}

void
res_pub_moe_plan (const ResPubMoe *moe, gint64 ep, Plan *plan)
{
  plan->ep = (int) ep;
  if (!moe->present)
    return;
  if (moe->etp > 0)
    plan->etp = (int) moe->etp;
  switch (moe->dispatcher)
    {
    case RES_PUB_DISPATCH_ALLGATHER: plan->moe_dispatcher = PLAN_MOE_ALLGATHER; break;
    case RES_PUB_DISPATCH_DEEPEP: plan->moe_dispatcher = PLAN_MOE_FLEX; break;
    case RES_PUB_DISPATCH_HYBRIDEP:
      plan->moe_dispatcher = PLAN_MOE_FLEX;
      plan->moe_flex_backend = PLAN_MOE_FLEX_HYBRIDEP;
      break;
    case RES_PUB_DISPATCH_ALLTOALL:
    case RES_PUB_DISPATCH_UNSTATED: plan->moe_dispatcher = PLAN_MOE_ALLTOALL; break;
    }
  plan->moe_capacity_factor = moe->capacity_factor;
  plan->moe_pad_to_capacity = moe->pad_to_capacity && moe->capacity_factor > 0;
  plan->moe_grouped_gemm = TRUE;
  /* mtp_layers=N: the run trained N multi-token-prediction modules (its
   * --mtp-num-layers, plan.h mtp_num_layers); the key absent or 0: none, Megatron's
   * default, whatever the model's config declares */
  plan->mtp_num_layers = (int) moe->mtp_layers;
  /* --moe-router-force-load-balancing gives every expert the mean (Megatron-Core's
   * benchmark switch, the Megatron-Bridge table's footnote); learned routing keeps the
   * plan's default */
  if (moe->routing == RES_PUB_ROUTING_FORCED)
    plan->moe_imbalance = 1.0;
  /* a2a_overlap=1f1b: the run used --overlap-moe-expert-parallel-comm */
  plan->moe_a2a_overlap = moe->a2a_overlap_1f1b;
  /* cuda_graph=: the run's --cuda-graph-impl transformer_engine --cuda-graph-scope, or
   * local with full_iteration, or transformer_engine over whole layers ("full") */
  if (moe->cuda_graph_scope != 0 || moe->cuda_graph_layer)
    {
      plan->cuda_graph_impl = moe->cuda_graph_scope == PLAN_CG_FULL_ITERATION
                                ? PLAN_CG_IMPL_LOCAL : PLAN_CG_IMPL_TRANSFORMER_ENGINE;
      plan->cuda_graph_scope = moe->cuda_graph_scope;
    }
}

/* ---- MoE fields from a shipped preset the model cell names ---------------------------- */

gboolean
res_pub_moe_from_preset (const char *model_cell, guint64 hidden, guint64 layers,
                         guint64 heads, ResPubMoe *out)
{
  g_return_val_if_fail (out != NULL, FALSE);
  memset (out, 0, sizeof *out);
  if (model_cell == NULL || *model_cell == '\0')
    return FALSE;
  /* the words that name each preset, in the cell lower-cased with spaces and '_' as '-'
   * ("DeepSeek V3", "Mixtral 8x7B", "Llama 4 Scout 17B-16E", "gpt_oss_120b") */
  static const struct { const char *needle, *preset, *unless; } names[] = {
    { "deepseek-v3", "deepseek-v3", NULL },
    { "deepseek-v2", "deepseek-v2", "lite" },
    { "qwen3-30b-a3b", "qwen3-30b-a3b", NULL },
    { "qwen3-235b-a22b", "qwen3-235b-a22b", NULL },
    { "qwen3-next-80b", "qwen3-next-80b-a3b", NULL },
    { "qwen1.5-moe-a2.7b", "qwen1.5-moe-a2.7b", NULL },
    { "gpt-oss-120b", "gpt-oss-120b", NULL },
    { "gpt-oss-20b", "gpt-oss-20b", NULL },
    { "mixtral-8x7b", "mixtral-8x7b", NULL },
    { "mixtral-8x22b", "mixtral-8x22b", NULL },
    { "llama-4-scout", "llama4-scout", NULL },
    { "llama4-scout", "llama4-scout", NULL },
    { "llama-4-maverick", "llama4-maverick", NULL },
    { "llama4-maverick", "llama4-maverick", NULL },
    { "kimi-k2", "kimi-k2", NULL },
    { "dbrx", "dbrx", NULL },
    { "olmoe", "olmoe-1b-7b", NULL },
    { "glm-4.5-air", "glm-4.5-air", NULL },
    { "glm-4.5", "glm-4.5", "air" },
  };
  g_autofree char *low = g_ascii_strdown (model_cell, -1);
  /* a cell that names the model to compare with, or as a baseline's, is another model's
   * ("Llama 3 8B (baseline for the Mixtral 8x7B comparison)", "Llama 3 70B (vs Mixtral
   * 8x7B)": Llama 3 8B has Mixtral 8x7B's layers, hidden size and heads) */
  static const char *const other[] = { "vs", "vs.", "versus", "compared", "comparison",
                                       "baseline", "than", "unlike", "dense" };
  g_auto (GStrv) words = g_strsplit_set (low, " ()[],;:/", -1);
  for (guint i = 0; words[i] != NULL; i++)
    for (guint j = 0; j < G_N_ELEMENTS (other); j++)
      if (strcmp (words[i], other[j]) == 0)
        return FALSE;
  for (char *p = low; *p != '\0'; p++)
    if (*p == ' ' || *p == '_')
      *p = '-';
  const char *preset = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (names) && preset == NULL; i++)
    {
      const char *at = strstr (low, names[i].needle);
      /* a word of its own: not "xdeepseek-v3x", "gpt-oss-120b" in "gpt-oss-120b-like" is
       * still the model */
      if (at == NULL || (at != low && g_ascii_isalnum (at[-1]))
          || g_ascii_isdigit (at[strlen (names[i].needle)])
          || (names[i].unless != NULL && strstr (low, names[i].unless) != NULL))
        continue;
      preset = names[i].preset;
    }
  if (preset == NULL)
    return FALSE;
  g_autoptr (ModelSpec) m = model_spec_load_preset (preset, NULL);
  if (m == NULL || m->n_experts == 0 || m->hidden != hidden || m->n_layers != layers
      || m->n_heads != heads)
    return FALSE;
  out->present = TRUE;
  out->preset = preset;
  out->experts = m->n_experts;
  out->top_k = m->moe_top_k;
  out->moe_ffn = m->moe_ffn;
  out->shared_experts = m->n_shared_experts;
  out->shared_expert_ffn = m->n_shared_experts > 0 ? m->shared_expert_ffn : 0;
  out->dense_layers = m->first_dense_layers;
  out->moe_every = m->moe_layer_step > 1 ? m->moe_layer_step : 0;
  /* the dense layers' MLP (DeepSeek's first three, Maverick's every other) is the
   * preset's, not the row's ffn_hidden, which sources give as either width */
  if (m->first_dense_layers > 0 || m->moe_layer_step > 1)
    out->dense_ffn = m->ffn_hidden;
  if (m->kv_lora_rank > 0)
    {
      out->mla = TRUE;
      out->q_lora = m->q_lora_rank;
      out->kv_lora = m->kv_lora_rank;
      out->qk_nope = m->qk_nope_head_dim;
      out->qk_rope = m->qk_rope_head_dim;
      out->v_head = m->v_head_dim;
    }
  else if (m->head_dim != m->hidden / m->n_heads)
    out->head_dim = m->head_dim;
  out->sliding_window = m->sliding_window;
  out->sliding_window_layers = m->sliding_window > 0 ? m->n_sliding_layers : 0;
  out->bias = m->attn_bias && m->mlp_bias;
  out->glu_limit = m->glu_limit;
  if (m->full_attn_interval > 0 && m->gdn_k_heads > 0)
    {
      out->gdn_full = m->n_layers / m->full_attn_interval;
      out->gdn_linear = m->n_layers - out->gdn_full;
      out->gdn_k_heads = m->gdn_k_heads;
      out->gdn_v_heads = m->gdn_v_heads;
      out->gdn_k_dim = m->gdn_k_dim;
      out->gdn_v_dim = m->gdn_v_dim;
      out->gdn_conv = m->gdn_conv;
    }
  return TRUE;
}
