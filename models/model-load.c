/* models/model-load.c - ModelSpec from a Hugging Face config.json.
 *
 * One reader per family, dispatched on `model_type`. Each reader names the fields the way
 * that family's config does, so every error message quotes the field as written in the
 * file. Defaults for absent optional fields are those of the matching transformers
 * config class (LlamaConfig, GPT2Config, GPTNeoXConfig, OPTConfig, MixtralConfig, ...), so a config.json
 * saved by save_pretrained() and a hand-trimmed one describe the same model.
 * Unknown fields are ignored (real configs carry dozens); a field we read must have the
 * JSON type we expect. */
#include "models/model.h"
#include "util/input.h"

#include <json-glib/json-glib.h>
#include <stdarg.h>
#include <string.h>

G_DEFINE_QUARK (model-error-quark, model_error)

/* Why each cap (model.h): the widest, deepest published models times a wide margin,
 * small enough that parameter counts stay exact in 64 bits. */
static const char cap_reason[] = "far above any published model, and small enough that "
                                 "parameter counts stay exact in 64 bits";

ModelSpec *
model_spec_ref (ModelSpec *spec)
{
  g_return_val_if_fail (spec != NULL, NULL);
  g_atomic_int_inc (&spec->ref_count);
  return spec;
}

void
model_spec_unref (ModelSpec *spec)
{
  if (spec == NULL || !g_atomic_int_dec_and_test (&spec->ref_count))
    return;
  g_free (spec->name);
  g_free (spec->source);
  g_free (spec->model_type);
  g_free (spec->config_json);
  g_free (spec->config_warning);
  g_free (spec->layer_pattern);
  g_free (spec);
}

ModelSpec *
model_spec_copy (const ModelSpec *spec)
{
  g_return_val_if_fail (spec != NULL, NULL);
  ModelSpec *c = g_new (ModelSpec, 1);
  *c = *spec;
  c->ref_count = 1;
  c->name = g_strdup (spec->name);
  c->source = g_strdup (spec->source);
  c->model_type = g_strdup (spec->model_type);
  c->config_json = g_strdup (spec->config_json);
  c->config_warning = g_strdup (spec->config_warning);
  c->layer_pattern = g_strdup (spec->layer_pattern);
  return c;
}

void
model_spec_set_config_json (ModelSpec *spec, const char *config_json, const char *source)
{
  g_return_if_fail (spec != NULL && config_json != NULL);
  g_free (spec->config_json);
  spec->config_json = g_strdup (config_json);
  if (source != NULL)
    {
      g_free (spec->source);
      spec->source = g_strdup (source);
    }
}

char *
model_moe_problem (const ModelSpec *s)
{
  g_return_val_if_fail (s != NULL, NULL);
  if (s->n_experts > 0)
    {
      if (s->n_experts > MODEL_MAX_EXPERTS)
        return g_strdup_printf ("experts %" G_GUINT64_FORMAT " is above the cap of %"
                                G_GUINT64_FORMAT " (%s)", s->n_experts, MODEL_MAX_EXPERTS,
                                cap_reason);
      if (s->moe_top_k == 0 || s->moe_top_k > s->n_experts)
        return g_strdup_printf ("top_k %" G_GUINT64_FORMAT " is not between 1 and the %"
                                G_GUINT64_FORMAT " experts", s->moe_top_k, s->n_experts);
      if (s->moe_ffn == 0 || s->moe_ffn > MODEL_MAX_FFN)
        return g_strdup_printf ("moe_ffn %" G_GUINT64_FORMAT " is not between 1 and %"
                                G_GUINT64_FORMAT, s->moe_ffn, MODEL_MAX_FFN);
      if (s->n_experts * s->moe_ffn > MODEL_MAX_EXPERT_WIDTH)
        return g_strdup_printf ("experts x moe_ffn = %" G_GUINT64_FORMAT " is above the cap of %"
                                G_GUINT64_FORMAT " (%s)", s->n_experts * s->moe_ffn,
                                MODEL_MAX_EXPERT_WIDTH, cap_reason);
      if (s->shared_expert_ffn > MODEL_MAX_FFN)
        return g_strdup_printf ("shared_expert_ffn %" G_GUINT64_FORMAT " is above the cap of %"
                                G_GUINT64_FORMAT " (%s)", s->shared_expert_ffn, MODEL_MAX_FFN,
                                cap_reason);
      if (s->first_dense_layers > s->n_layers)
        return g_strdup_printf ("dense layers %" G_GUINT64_FORMAT " exceed the %"
                                G_GUINT64_FORMAT " layers", s->first_dense_layers, s->n_layers);
      if (s->moe_layer_step > s->n_layers)
        return g_strdup_printf ("MoE layer step %" G_GUINT64_FORMAT " exceeds the %"
                                G_GUINT64_FORMAT " layers", s->moe_layer_step, s->n_layers);
    }
  else if (s->moe_top_k > 0 || s->moe_ffn > 0 || s->shared_expert_ffn > 0)
    return g_strdup ("MoE sizes given without experts");
  if (s->kv_lora_rank > 0)
    {
      const guint64 dims[] = { s->qk_nope_head_dim, s->qk_rope_head_dim, s->v_head_dim };
      for (guint i = 0; i < G_N_ELEMENTS (dims); i++)
        if (dims[i] == 0 || dims[i] > MODEL_MAX_HEADS)
          return g_strdup_printf ("MLA head dims (nope %" G_GUINT64_FORMAT ", rope %"
                                  G_GUINT64_FORMAT ", v %" G_GUINT64_FORMAT ") must be 1 to %"
                                  G_GUINT64_FORMAT, s->qk_nope_head_dim, s->qk_rope_head_dim,
                                  s->v_head_dim, MODEL_MAX_HEADS);
      if (s->kv_lora_rank > MODEL_MAX_HIDDEN || s->q_lora_rank > MODEL_MAX_HIDDEN)
        return g_strdup_printf ("MLA ranks (q %" G_GUINT64_FORMAT ", kv %" G_GUINT64_FORMAT
                                ") are above the cap of %" G_GUINT64_FORMAT " (%s)",
                                s->q_lora_rank, s->kv_lora_rank, MODEL_MAX_HIDDEN, cap_reason);
      const guint64 widest = MAX (s->qk_nope_head_dim + s->qk_rope_head_dim,
                                  s->qk_nope_head_dim + s->v_head_dim);
      if (s->n_heads * widest > MODEL_MAX_FFN)
        return g_strdup_printf ("heads x MLA head dims = %" G_GUINT64_FORMAT " is above the cap "
                                "of %" G_GUINT64_FORMAT " (%s)", s->n_heads * widest,
                                MODEL_MAX_FFN, cap_reason);
      if (s->head_dim != s->qk_nope_head_dim + s->qk_rope_head_dim)
        return g_strdup_printf ("head_dim %" G_GUINT64_FORMAT " is not qk_nope + qk_rope = %"
                                G_GUINT64_FORMAT " (MLA)", s->head_dim,
                                s->qk_nope_head_dim + s->qk_rope_head_dim);
    }
  return NULL;
}

/* ---- typed field access --------------------------------------------------------------- */

typedef struct {
  JsonObject *obj;
  const char *file;     /* for messages: the path as given, or "preset:NAME" */
  GHashTable *asked;    /* the top-level reader: every key a family reader asked for,
                         * present or not (NULL in nested readers) */
} Reader;

/* A member that is absent or JSON null counts as absent (gpt2 writes "n_inner": null). */
static JsonNode *
reader_member (const Reader *r, const char *key)
{
  if (r->asked != NULL)
    g_hash_table_add (r->asked, (gpointer) key);
  JsonNode *node = json_object_get_member (r->obj, key);
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NULL;
  return node;
}

/* A member that the file writes as JSON null, which some config classes read apart from
 * an absent one (MistralConfig: an absent sliding_window is 4096, a null one none). */
static gboolean
reader_member_is_null (const Reader *r, const char *key)
{
  if (r->asked != NULL)
    g_hash_table_add (r->asked, (gpointer) key);
  JsonNode *node = json_object_get_member (r->obj, key);
  return node != NULL && JSON_NODE_HOLDS_NULL (node);
}

static const char *
node_type_name (JsonNode *node)
{
  if (JSON_NODE_HOLDS_VALUE (node))
    {
      GType t = json_node_get_value_type (node);
      if (t == G_TYPE_INT64)
        return "an integer";
      if (t == G_TYPE_DOUBLE)
        return "a floating-point number";
      if (t == G_TYPE_BOOLEAN)
        return "a boolean";
      if (t == G_TYPE_STRING)
        return "a string";
    }
  if (JSON_NODE_HOLDS_OBJECT (node))
    return "an object";
  if (JSON_NODE_HOLDS_ARRAY (node))
    return "an array";
  return "something else";
}

static gboolean
wrong_type (const Reader *r, const char *key, JsonNode *node, const char *want, GError **error)
{
  g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVALID_FIELD,
               "%s: field '%s' must be %s, not %s", r->file, key, want, node_type_name (node));
  return FALSE;
}

static guint key_distance (const char *a, const char *b);

/* " (hint: ...)" naming a field of the file that is a slip of the missing `key`
 * ("num_hidden_layerz" for "num_hidden_layers": one slip per 4 characters, at most 2, as
 * slipped_fields counts them), else "". */
static char *
missing_hint (const Reader *r, const char *key)
{
  guint limit = MIN (2u, (guint) strlen (key) / 4);
  g_autoptr (GList) members = json_object_get_members (r->obj);
  for (GList *l = members; l != NULL; l = l->next)
    if (strcmp (l->data, key) != 0 && key_distance (l->data, key) <= limit)
      return g_strdup_printf (" (hint: the file has '%s'; did you mean '%s'?)",
                              (const char *) l->data, key);
  return g_strdup ("");
}

/* A positive element count. `required` FALSE leaves *out untouched when absent;
 * *present (may be NULL) says which happened. */
static gboolean
read_size (const Reader *r, const char *key, gboolean required, guint64 max, guint64 *out,
           gboolean *present, GError **error)
{
  JsonNode *node = reader_member (r, key);
  if (present != NULL)
    *present = node != NULL;
  if (node == NULL)
    {
      if (!required)
        return TRUE;
      g_autofree char *hint = missing_hint (r, key);
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_MISSING_FIELD,
                   "%s: missing field '%s'%s", r->file, key, hint);
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return wrong_type (r, key, node, "an integer", error);
  gint64 v = json_node_get_int (node);
  if (v <= 0)
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVALID_FIELD,
                   "%s: field '%s' is %" G_GINT64_FORMAT ", must be at least 1",
                   r->file, key, v);
      return FALSE;
    }
  if ((guint64) v > max)
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVALID_FIELD,
                   "%s: field '%s' is %" G_GINT64_FORMAT ", above the cap of %" G_GUINT64_FORMAT
                   " (%s; hint: check the config)", r->file, key, v, max, cap_reason);
      return FALSE;
    }
  *out = (guint64) v;
  return TRUE;
}

static gboolean
read_bool (const Reader *r, const char *key, gboolean *out, GError **error)
{
  JsonNode *node = reader_member (r, key);
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return wrong_type (r, key, node, "a boolean", error);
  *out = json_node_get_boolean (node);
  return TRUE;
}

/* A count that may be 0 (first_k_dense_replace, n_shared_experts): absent or null leaves
 * *out untouched. */
static gboolean
read_count (const Reader *r, const char *key, guint64 max, guint64 *out, GError **error)
{
  JsonNode *node = reader_member (r, key);
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return wrong_type (r, key, node, "an integer", error);
  gint64 v = json_node_get_int (node);
  if (v < 0 || (guint64) v > max)
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVALID_FIELD,
                   "%s: field '%s' is %" G_GINT64_FORMAT ", must be 0 to %" G_GUINT64_FORMAT,
                   r->file, key, v, max);
      return FALSE;
    }
  *out = (guint64) v;
  return TRUE;
}

/* An array member, or NULL when absent; *ok FALSE when it is something else. */
static JsonArray *
read_array (const Reader *r, const char *key, gboolean *ok, GError **error)
{
  JsonNode *node = reader_member (r, key);
  *ok = TRUE;
  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      *ok = wrong_type (r, key, node, "an array", error);
      return NULL;
    }
  return json_node_get_array (node);
}

/* Returns the string (owned by the JSON tree) or NULL when absent; *ok FALSE on error. */
static const char *
read_string (const Reader *r, const char *key, gboolean *ok, GError **error)
{
  JsonNode *node = reader_member (r, key);
  *ok = TRUE;
  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      *ok = wrong_type (r, key, node, "a string", error);
      return NULL;
    }
  return json_node_get_string (node);
}

/* ---- families ------------------------------------------------------------------------- */

static gboolean moe_invalid (const Reader *r, GError **error, const char *fmt, ...)
  G_GNUC_PRINTF (3, 4);

/* How one family spells the fields that the shared checks talk about. */
typedef struct {
  const char *hidden, *ffn, *layers, *heads, *kv_heads, *head_dim, *vocab, *positions;
} FieldNames;

static const FieldNames llama_names = {
  "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
  "num_key_value_heads", "head_dim", "vocab_size", "max_position_embeddings",
};
static const FieldNames gpt2_names = {
  "n_embd", "n_inner", "n_layer", "n_head", "num_key_value_heads", "head_dim",
  "vocab_size", "n_positions",
};
static const FieldNames neox_names = {
  "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
  "num_key_value_heads", "head_dim", "vocab_size", "max_position_embeddings",
};
static const FieldNames opt_names = {
  "hidden_size", "ffn_dim", "num_hidden_layers", "num_attention_heads",
  "num_key_value_heads", "head_dim", "vocab_size", "max_position_embeddings",
};

/* Reads the sizes every family shares. `ffn_required` FALSE means absent -> 4h (gpt2's
 * n_inner); a NULL ffn, kv_heads or head_dim name means the family has no such field
 * (BLOOM's MLP is always 4h, its heads all have their own K and V). `default_positions` is the config class default for the position field.
 * Heads, KV heads, head_dim and vocab already set in `spec` are the family's defaults
 * (Gemma3TextConfig): those fields may then be absent. */
static gboolean
read_common (const Reader *r, const FieldNames *f, gboolean ffn_required,
             guint64 default_positions, ModelSpec *spec, GError **error)
{
  gboolean have_ffn = FALSE, have_kv = FALSE, have_head_dim = FALSE;

  if (!read_size (r, f->hidden, TRUE, MODEL_MAX_HIDDEN, &spec->hidden, NULL, error)
      || (f->ffn != NULL
          && !read_size (r, f->ffn, ffn_required, MODEL_MAX_FFN, &spec->ffn_hidden, &have_ffn,
                         error))
      || !read_size (r, f->layers, TRUE, MODEL_MAX_LAYERS, &spec->n_layers, NULL, error)
      || !read_size (r, f->heads, spec->n_heads == 0, MODEL_MAX_HEADS, &spec->n_heads, NULL,
                     error)
      || (f->kv_heads != NULL
          && !read_size (r, f->kv_heads, FALSE, MODEL_MAX_HEADS, &spec->n_kv_heads, &have_kv,
                         error))
      || (f->head_dim != NULL
          && !read_size (r, f->head_dim, FALSE, MODEL_MAX_HEADS, &spec->head_dim,
                         &have_head_dim, error))
      || !read_size (r, f->vocab, spec->vocab == 0, MODEL_MAX_VOCAB, &spec->vocab, NULL,
                     error))
    return FALSE;
  spec->max_positions = default_positions;
  if (!read_size (r, f->positions, FALSE, MODEL_MAX_POSITIONS, &spec->max_positions, NULL,
                  error))
    return FALSE;

  if (!have_ffn)
    spec->ffn_hidden = 4 * spec->hidden;      /* GPT2Config: n_inner None -> 4 * n_embd */
  /* Absent KV heads: the family's default where the reader set one in `spec` (MistralConfig
   * 8), else num_attention_heads (LlamaConfig and most classes: None -> the heads) */
  if (!have_kv && spec->n_kv_heads == 0)
    spec->n_kv_heads = spec->n_heads;
  /* a family default of KV heads is named as such: the file has no such field to fix */
  const char *kv_default = have_kv ? "" : ", the config class's default where the file "
                                          "leaves it out";

  if (spec->n_kv_heads > spec->n_heads)
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVALID_FIELD,
                   "%s: field '%s' (%" G_GUINT64_FORMAT "%s) exceeds '%s' (%" G_GUINT64_FORMAT
                   ")", r->file, f->kv_heads, spec->n_kv_heads, kv_default, f->heads,
                   spec->n_heads);
      return FALSE;
    }
  if (spec->n_heads % spec->n_kv_heads != 0)
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVALID_FIELD,
                   "%s: field '%s' (%" G_GUINT64_FORMAT "%s) does not divide '%s' (%"
                   G_GUINT64_FORMAT ")", r->file, f->kv_heads, spec->n_kv_heads, kv_default,
                   f->heads, spec->n_heads);
      return FALSE;
    }
  /* An explicit head_dim may disagree with h / a (Mistral-NeMo: 5120 / 32 != 128); an
   * implicit one must divide exactly. */
  if (!have_head_dim && spec->head_dim == 0)
    {
      if (spec->hidden % spec->n_heads != 0)
        {
          g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVALID_FIELD,
                       "%s: field '%s' (%" G_GUINT64_FORMAT ") is not divisible by '%s' (%"
                       G_GUINT64_FORMAT "); give '%s' explicitly", r->file, f->hidden,
                       spec->hidden, f->heads, spec->n_heads,
                       f->head_dim != NULL ? f->head_dim : "head_dim");
          return FALSE;
        }
      spec->head_dim = spec->hidden / spec->n_heads;
    }
  /* q = heads x head_dim is the width of Q and O: bounded like the FFN (both <= 2^16, so
   * the product cannot wrap) */
  if (spec->n_heads * spec->head_dim > MODEL_MAX_FFN)
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVALID_FIELD,
                   "%s: '%s' x head_dim = %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT
                   " is above the cap of %" G_GUINT64_FORMAT " for the attention width (%s; "
                   "hint: check the config)", r->file, f->heads, spec->n_heads, spec->head_dim,
                   MODEL_MAX_FFN, cap_reason);
      return FALSE;
    }
  return TRUE;
}

char *
model_sizes_problem (guint64 hidden, guint64 ffn_hidden, guint64 n_layers, guint64 n_heads,
                     guint64 n_kv_heads, guint64 head_dim, guint64 vocab, guint64 positions)
{
  const struct { const char *name; guint64 v, max; } f[] = {
    { "hidden", hidden, MODEL_MAX_HIDDEN }, { "ffn_hidden", ffn_hidden, MODEL_MAX_FFN },
    { "n_layers", n_layers, MODEL_MAX_LAYERS }, { "n_heads", n_heads, MODEL_MAX_HEADS },
    { "n_kv_heads", n_kv_heads, MODEL_MAX_HEADS }, { "head_dim", head_dim, MODEL_MAX_HEADS },
    { "vocab", vocab, MODEL_MAX_VOCAB }, { "seq_len", positions, MODEL_MAX_POSITIONS },
  };
  for (guint i = 0; i < G_N_ELEMENTS (f); i++)
    {
      if (f[i].v == 0)
        return g_strdup_printf ("%s is 0, must be at least 1", f[i].name);
      if (f[i].v > f[i].max)
        return g_strdup_printf ("%s %" G_GUINT64_FORMAT " is above the cap of %"
                                G_GUINT64_FORMAT " (%s)", f[i].name, f[i].v, f[i].max,
                                cap_reason);
    }
  if (n_heads * head_dim > MODEL_MAX_FFN)
    return g_strdup_printf ("n_heads x head_dim = %" G_GUINT64_FORMAT " is above the cap of %"
                            G_GUINT64_FORMAT " (%s)", n_heads * head_dim, MODEL_MAX_FFN,
                            cap_reason);
  if (n_kv_heads > n_heads || n_heads % n_kv_heads != 0)
    return g_strdup_printf ("n_kv_heads %" G_GUINT64_FORMAT " does not divide n_heads %"
                            G_GUINT64_FORMAT, n_kv_heads, n_heads);
  return NULL;
}

static gboolean read_layer_types (const Reader *r, ModelSpec *spec, GError **error);

/* Qwen2 / Qwen2-MoE / Qwen3 (Qwen2Config, Qwen3Config): sliding_window (class default
 * 4096; null: none) applies only with use_sliding_window true (default false), and then to
 * the layers `layer_types` marks "sliding_attention" where the config lists them, else to
 * the layers from max_window_layers on (default 28; Qwen3Config.__post_init__ builds
 * layer_types that way). A file with use_sliding_window true and no sliding_window read
 * no window before (the class's 4096 was taken as 0). */
static gboolean
read_sliding_qwen (const Reader *r, ModelSpec *spec, GError **error)
{
  gboolean use = FALSE, ok;
  guint64 window = 4096, max_window_layers = 28;
  if (reader_member_is_null (r, "sliding_window"))
    window = 0;
  if (!read_bool (r, "use_sliding_window", &use, error)
      || !read_size (r, "sliding_window", FALSE, MODEL_MAX_POSITIONS, &window, NULL, error)
      || !read_count (r, "max_window_layers", MODEL_MAX_LAYERS, &max_window_layers, error))
    return FALSE;
  JsonArray *types = read_array (r, "layer_types", &ok, error);
  if (!ok)
    return FALSE;
  guint64 n_sliding = max_window_layers < spec->n_layers ? spec->n_layers - max_window_layers
                                                         : 0;
  if (types != NULL)
    {
      if (!read_layer_types (r, spec, error))
        return FALSE;
      n_sliding = spec->n_sliding_layers;
    }
  spec->sliding_window = 0;
  spec->n_sliding_layers = 0;
  if (use && window > 0 && n_sliding > 0)
    {
      spec->sliding_window = window;
      spec->n_sliding_layers = n_sliding;
    }
  return TRUE;
}

/* `layer_types` (gpt-oss, newer Gemma 2 configs): how many say "sliding_attention"; when
 * absent, every other layer from layer 0 (GptOssConfig and Gemma2 defaults). */
static gboolean
read_layer_types (const Reader *r, ModelSpec *spec, GError **error)
{
  gboolean ok;
  JsonArray *types = read_array (r, "layer_types", &ok, error);
  if (!ok)
    return FALSE;
  if (types == NULL)
    {
      spec->n_sliding_layers = (spec->n_layers + 1) / 2;
      return TRUE;
    }
  if (json_array_get_length (types) != spec->n_layers)
    return moe_invalid (r, error, "field 'layer_types' has %u entries, not "
                        "'num_hidden_layers' (%" G_GUINT64_FORMAT "; hint: one per layer)",
                        json_array_get_length (types), spec->n_layers);
  spec->n_sliding_layers = 0;
  for (guint i = 0; i < json_array_get_length (types); i++)
    {
      JsonNode *n = json_array_get_element (types, i);
      const char *t = JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
                      ? json_node_get_string (n) : NULL;
      if (t == NULL || (strcmp (t, "sliding_attention") != 0
                        && strcmp (t, "full_attention") != 0))
        return moe_invalid (r, error, "field 'layer_types' entry %u is not "
                            "\"sliding_attention\" or \"full_attention\"", i);
      if (strcmp (t, "sliding_attention") == 0)
        spec->n_sliding_layers++;
    }
  return TRUE;
}

static gboolean read_rotary_fraction (const Reader *r, double *out, GError **error);

/* The Llama block under LlamaConfig's names, with the family's config-class defaults for
 * max_position_embeddings and tie_word_embeddings. */
static gboolean
read_llama_block (const Reader *r, ModelSpec *spec, guint64 default_positions,
                  gboolean default_tied, GError **error)
{
  gboolean ok;
  if (!read_common (r, &llama_names, TRUE, default_positions, spec, error))
    return FALSE;
  const char *act = read_string (r, "hidden_act", &ok, error);
  if (!ok)
    return FALSE;
  if (act != NULL && strcmp (act, "silu") != 0 && strcmp (act, "swish") != 0)
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_UNSUPPORTED,
                   "%s: field 'hidden_act' is '%s'; the %s family is modelled with SwiGLU "
                   "(\"silu\") only", r->file, act, spec->model_type);
      return FALSE;
    }
  spec->mlp = MODEL_MLP_SWIGLU;
  spec->norm = MODEL_NORM_RMS;
  spec->pos = MODEL_POS_ROTARY;
  spec->tied_embeddings = default_tied;
  spec->attn_bias = FALSE;
  spec->mlp_bias = FALSE;
  spec->norms_per_block = 2;
  /* Qwen2 and Qwen2-MoE: q/k/v carry biases, o does not (Qwen2Attention: o_proj
   * bias=False), and the config has no field for it. */
  if (strcmp (spec->model_type, "qwen2") == 0 || strcmp (spec->model_type, "qwen2_moe") == 0
      || strcmp (spec->model_type, "qwen2_vl") == 0
      || strcmp (spec->model_type, "qwen2_5_vl") == 0)
    {
      /* Qwen2MoeConfig has the switch (qkv_bias, default true); Qwen2Config none */
      spec->attn_qkv_bias = TRUE;
      return read_bool (r, "tie_word_embeddings", &spec->tied_embeddings, error)
             && (strcmp (spec->model_type, "qwen2_moe") != 0
                 || read_bool (r, "qkv_bias", &spec->attn_qkv_bias, error))
             && read_sliding_qwen (r, spec, error);
    }
  /* Qwen3 and Qwen3-MoE: RMSNorm over head_dim of every q and k head (q_norm, k_norm). */
  spec->qk_norm = strcmp (spec->model_type, "qwen3") == 0
                  || strcmp (spec->model_type, "qwen3_moe") == 0
                  || strcmp (spec->model_type, "qwen3_next") == 0;
  if (!read_bool (r, "tie_word_embeddings", &spec->tied_embeddings, error)
      || !read_bool (r, "attention_bias", &spec->attn_bias, error)
      || !read_bool (r, "mlp_bias", &spec->mlp_bias, error))
    return FALSE;
  if (strcmp (spec->model_type, "qwen3") == 0 && !read_sliding_qwen (r, spec, error))
    return FALSE;
  /* Mistral 7B v0.1 and Phi-3: every layer attends to the last sliding_window tokens
   * (MistralAttention, Phi3Attention); null: full attention; absent: the class's default,
   * which the caller left in spec->sliding_window (MistralConfig 4096; Phi3Config and
   * MixtralConfig none). */
  if (strcmp (spec->model_type, "mistral") == 0 || strcmp (spec->model_type, "phi3") == 0
      || strcmp (spec->model_type, "mixtral") == 0)
    {
      if (reader_member_is_null (r, "sliding_window"))
        spec->sliding_window = 0;
      if (!read_size (r, "sliding_window", FALSE, MODEL_MAX_POSITIONS, &spec->sliding_window,
                      NULL, error))
        return FALSE;
      spec->n_sliding_layers = spec->sliding_window > 0 ? spec->n_layers : 0;
    }
  /* Phi-3 / Phi-4: Phi3Config's partial_rotary_factor (default 1.0; Phi-4-mini 0.75): RoPE
   * turns that share of each q and k head, the rest passes through (Phi3Attention) */
  if (strcmp (spec->model_type, "phi3") == 0
      && !read_rotary_fraction (r, &spec->rotary_fraction, error))
    return FALSE;
  return TRUE;
}

/* LlamaConfig (configuration_llama.py): max_position_embeddings 2048, untied,
 * num_key_value_heads None -> num_attention_heads. The families that read through here
 * take those defaults (GraniteConfig and MiniCPM's have the same); one whose class has
 * other defaults for KV heads, head_dim or positions gets its own reader with the class
 * named (read_qwen, read_phi3, read_mistral_block, read_deepseek, read_glm_block,
 * read_cohere, ...). */
static gboolean
read_llama (const Reader *r, ModelSpec *spec, GError **error)
{
  return read_llama_block (r, spec, 2048, FALSE, error);
}

/* Phi3Config (configuration_phi3.py): LlamaConfig's block but max_position_embeddings
 * 4096 (a Phi-3 file without it read 2048, and a plan's default sequence with it). */
static gboolean
read_phi3 (const Reader *r, ModelSpec *spec, GError **error)
{
  return read_llama_block (r, spec, 4096, FALSE, error);
}

/* Qwen2Config, Qwen3Config, Qwen2MoeConfig, Qwen3MoeConfig (transformers
 * configuration_qwen2.py, _qwen3.py, _qwen2_moe.py, _qwen3_moe.py): max_position_embeddings
 * 32768; an absent num_key_value_heads is the class's number, not the heads (Qwen2 and
 * Qwen3 32, Qwen2-MoE 16, Qwen3-MoE 4), a null one the heads; Qwen3Config's head_dim 128
 * where absent (Qwen3-MoE has no such field: h / a). A Qwen3-32B-shaped file without
 * head_dim read 80 (30.50 B parameters, not 32.76 B), a Qwen3-30B-A3B one without
 * num_key_value_heads 32 KV heads (31.24 B, not 30.53 B), and every one of them 2048
 * positions. */
static void
qwen_defaults (const Reader *r, ModelSpec *spec)
{
  const char *t = spec->model_type;
  guint64 kv = strcmp (t, "qwen2_moe") == 0 ? 16 : strcmp (t, "qwen3_moe") == 0 ? 4 : 32;
  spec->n_kv_heads = reader_member_is_null (r, "num_key_value_heads") ? 0 : kv;
  if (strcmp (t, "qwen3") == 0)
    spec->head_dim = 128;
}

static gboolean
read_qwen (const Reader *r, ModelSpec *spec, GError **error)
{
  qwen_defaults (r, spec);
  return read_llama_block (r, spec, 32768, FALSE, error);
}

/* MistralConfig and MixtralConfig (configuration_mistral.py, configuration_mixtral.py):
 * absent num_key_value_heads is 8, not num_attention_heads as in LlamaConfig, though a
 * null one still is the heads (both classes map None to num_attention_heads);
 * max_position_embeddings 4096 * 32 = 131072, untied. `window` is the class's
 * sliding_window default: Mistral 4096, Mixtral none (0). A Mistral-7B-v0.1 config
 * without these three fields read 32 KV heads (8,047,038,464 parameters, not
 * 7,241,732,096), 2048 positions and no window. */
static gboolean
read_mistral_block (const Reader *r, ModelSpec *spec, guint64 window, GError **error)
{
  spec->n_kv_heads = reader_member_is_null (r, "num_key_value_heads") ? 0 : 8;
  spec->sliding_window = window;
  return read_llama_block (r, spec, 4096 * 32, FALSE, error);
}

static gboolean
read_mistral (const Reader *r, ModelSpec *spec, GError **error)
{
  return read_mistral_block (r, spec, 4096, error);
}

/* ---- mixture of experts --------------------------------------------------------------- */

static gboolean
moe_invalid (const Reader *r, GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *what = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, MODEL_ERROR, MODEL_ERROR_INVALID_FIELD, "%s: %s", r->file, what);
  return FALSE;
}

/* The routed-expert fields every MoE family has, spelled as the family spells them; all
 * required (a MoE config without them is a trimmed or mistaken file, and guessing the
 * expert count changes the model 8-fold). `ffn_key` is the size of one expert. */
static gboolean
read_moe_experts (const Reader *r, const char *experts_key, const char *topk_key,
                  const char *ffn_key, ModelSpec *spec, GError **error)
{
  if (!read_size (r, experts_key, TRUE, MODEL_MAX_EXPERTS, &spec->n_experts, NULL, error)
      || !read_size (r, topk_key, TRUE, MODEL_MAX_EXPERTS, &spec->moe_top_k, NULL, error)
      || !read_size (r, ffn_key, TRUE, MODEL_MAX_FFN, &spec->moe_ffn, NULL, error))
    return FALSE;
  if (spec->moe_top_k > spec->n_experts)
    return moe_invalid (r, error, "field '%s' (%" G_GUINT64_FORMAT ") exceeds '%s' (%"
                        G_GUINT64_FORMAT "): a token cannot visit more experts than there are "
                        "(hint: check the config)",
                        topk_key, spec->moe_top_k, experts_key, spec->n_experts);
  if (spec->n_experts * spec->moe_ffn > MODEL_MAX_EXPERT_WIDTH)
    return moe_invalid (r, error, "'%s' x '%s' = %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT
                        " is above the cap of %" G_GUINT64_FORMAT " for the experts' width "
                        "per layer (%s; hint: check the config)", experts_key, ffn_key,
                        spec->n_experts, spec->moe_ffn, MODEL_MAX_EXPERT_WIDTH, cap_reason);
  spec->moe_layer_step = 1;
  return TRUE;
}

/* Mixtral (MixtralConfig, transformers modeling_mixtral.py): a Mistral block whose MLP is
 * num_local_experts SwiGLU experts of intermediate_size, top num_experts_per_tok by a
 * softmax router (block_sparse_moe.gate, h x E, no bias), the k weights renormalised. */
static gboolean
read_mixtral (const Reader *r, ModelSpec *spec, GError **error)
{
  if (!read_mistral_block (r, spec, 0, error)
      || !read_moe_experts (r, "num_local_experts", "num_experts_per_tok",
                            "intermediate_size", spec, error))
    return FALSE;
  spec->router_score = MODEL_ROUTER_SOFTMAX;
  spec->router_norm_topk = TRUE;
  return TRUE;
}

/* Qwen2-MoE and Qwen3-MoE (Qwen2MoeConfig, Qwen3MoeConfig): num_experts experts of
 * moe_intermediate_size, top num_experts_per_tok by softmax; layer i is MoE unless listed
 * in mlp_only_layers, when (i + 1) % decoder_sparse_step == 0; its dense MLP is
 * intermediate_size. Qwen2-MoE adds one shared expert of shared_expert_intermediate_size
 * behind a sigmoid gate (h x 1). tandem models the leading dense layers only: an
 * mlp_only_layers list other than 0..n-1 with step 1 is refused. */
static gboolean
read_qwen_moe (const Reader *r, ModelSpec *spec, GError **error)
{
  gboolean ok;
  const gboolean v2 = strcmp (spec->model_type, "qwen2_moe") == 0;
  guint64 step = 1;
  if (!read_qwen (r, spec, error)
      || !read_moe_experts (r, "num_experts", "num_experts_per_tok", "moe_intermediate_size",
                            spec, error)
      || !read_size (r, "decoder_sparse_step", FALSE, MODEL_MAX_LAYERS, &step, NULL, error)
      || !read_bool (r, "norm_topk_prob", &spec->router_norm_topk, error))
    return FALSE;
  spec->moe_layer_step = step;
  JsonArray *only = read_array (r, "mlp_only_layers", &ok, error);
  if (!ok)
    return FALSE;
  for (guint i = 0; only != NULL && i < json_array_get_length (only); i++)
    {
      JsonNode *n = json_array_get_element (only, i);
      if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64
          || json_node_get_int (n) != (gint64) i || step != 1)
        {
          g_set_error (error, MODEL_ERROR, MODEL_ERROR_UNSUPPORTED,
                       "%s: field 'mlp_only_layers' is not 0, 1, ..., n-1 with "
                       "'decoder_sparse_step' 1; tandem models dense layers only as a "
                       "leading block", r->file);
          return FALSE;
        }
      spec->first_dense_layers = i + 1;
    }
  if (spec->first_dense_layers > spec->n_layers)
    return moe_invalid (r, error, "field 'mlp_only_layers' lists more layers than "
                        "'num_hidden_layers' (%" G_GUINT64_FORMAT ")", spec->n_layers);
  spec->router_score = MODEL_ROUTER_SOFTMAX;
  if (v2)
    {
      if (!read_size (r, "shared_expert_intermediate_size", TRUE, MODEL_MAX_FFN,
                      &spec->shared_expert_ffn, NULL, error))
        return FALSE;
      spec->n_shared_experts = 1;
      spec->shared_expert_gate = TRUE;
    }
  return TRUE;
}

/* The rotated share of a head, `key` (partial_rotary_factor; GPT-NeoX's rotary_pct), at
 * the top level or (newer transformers) in rope_parameters: a number in (0, 1]; absent
 * leaves *out untouched. */
static gboolean
read_rotary_fraction_key (const Reader *r, const char *key, double *out, GError **error)
{
  const Reader *from = r;
  Reader rope = { NULL, r->file };
  JsonNode *node = reader_member (r, key);
  JsonNode *params = reader_member (r, "rope_parameters");
  if (node == NULL && params != NULL && JSON_NODE_HOLDS_OBJECT (params))
    {
      rope.obj = json_node_get_object (params);
      from = &rope;
      node = reader_member (from, key);
    }
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node)
      || (json_node_get_value_type (node) != G_TYPE_DOUBLE
          && json_node_get_value_type (node) != G_TYPE_INT64))
    return wrong_type (from, key, node, "a number", error);
  double v = json_node_get_double (node);
  if (!(v > 0.0 && v <= 1.0))
    return moe_invalid (r, error, "field '%s' is %g, must be in (0, 1]", key, v);
  *out = v;
  return TRUE;
}

static gboolean
read_rotary_fraction (const Reader *r, double *out, GError **error)
{
  return read_rotary_fraction_key (r, "partial_rotary_factor", out, error);
}

/* Qwen3-Next (Qwen3NextConfig, transformers modeling_qwen3_next.py): Qwen3-MoE's fields
 * (q/k norms, routed experts, decoder_sparse_step, mlp_only_layers) plus Qwen2-MoE's
 * gated shared expert (shared_expert_intermediate_size), gated full attention (q_proj
 * h -> 2 heads x head_dim, Qwen3NextAttention) with partial rotary, and Gated DeltaNet
 * layers everywhere but every full_attention_interval-th layer (model.h). Absent fields
 * take the Qwen3NextConfig defaults: head_dim 256, interval 4, conv 4, 16 key heads and
 * 32 value heads of 128, partial_rotary_factor 0.25. A layer_types list is accepted when
 * it is that pattern (tandem models the GDN layers by interval only). */
static gboolean
read_qwen3_next (const Reader *r, ModelSpec *spec, GError **error)
{
  gboolean ok, have_head_dim = FALSE;
  guint64 head_dim = 0;
  if (!read_size (r, "head_dim", FALSE, MODEL_MAX_HEADS, &head_dim, &have_head_dim, error)
      || !read_qwen_moe (r, spec, error))
    return FALSE;
  if (!have_head_dim)   /* Qwen3NextConfig: head_dim 256, not hidden / heads */
    {
      spec->head_dim = 256;
      if (spec->n_heads * spec->head_dim > MODEL_MAX_FFN)
        return moe_invalid (r, error, "'num_attention_heads' x head_dim 256 is above the cap "
                            "of %" G_GUINT64_FORMAT " (%s)", MODEL_MAX_FFN, cap_reason);
    }
  if (!read_size (r, "shared_expert_intermediate_size", TRUE, MODEL_MAX_FFN,
                  &spec->shared_expert_ffn, NULL, error))
    return FALSE;
  spec->n_shared_experts = 1;
  spec->shared_expert_gate = TRUE;
  spec->attn_output_gate = TRUE;
  spec->rotary_fraction = 0.25;
  spec->full_attn_interval = 4;
  spec->gdn_conv = 4;
  spec->gdn_k_heads = 16;
  spec->gdn_v_heads = 32;
  spec->gdn_k_dim = spec->gdn_v_dim = 128;
  if (!read_rotary_fraction (r, &spec->rotary_fraction, error)
      || !read_size (r, "full_attention_interval", FALSE, MODEL_MAX_LAYERS,
                     &spec->full_attn_interval, NULL, error)
      || !read_size (r, "linear_conv_kernel_dim", FALSE, 64, &spec->gdn_conv, NULL, error)
      || !read_size (r, "linear_num_key_heads", FALSE, MODEL_MAX_HEADS, &spec->gdn_k_heads,
                     NULL, error)
      || !read_size (r, "linear_num_value_heads", FALSE, MODEL_MAX_HEADS, &spec->gdn_v_heads,
                     NULL, error)
      || !read_size (r, "linear_key_head_dim", FALSE, MODEL_MAX_HEADS, &spec->gdn_k_dim, NULL,
                     error)
      || !read_size (r, "linear_value_head_dim", FALSE, MODEL_MAX_HEADS, &spec->gdn_v_dim,
                     NULL, error))
    return FALSE;
  if (spec->gdn_v_heads % spec->gdn_k_heads != 0)
    return moe_invalid (r, error, "field 'linear_num_key_heads' (%" G_GUINT64_FORMAT ") does "
                        "not divide 'linear_num_value_heads' (%" G_GUINT64_FORMAT "; each key "
                        "head serves a whole group of value heads)", spec->gdn_k_heads,
                        spec->gdn_v_heads);
  if (spec->gdn_k_heads * spec->gdn_k_dim > MODEL_MAX_FFN
      || spec->gdn_v_heads * spec->gdn_v_dim > MODEL_MAX_FFN)
    return moe_invalid (r, error, "the linear-attention key or value width (heads x head dim) "
                        "is above the cap of %" G_GUINT64_FORMAT " (%s; hint: check the config)",
                        MODEL_MAX_FFN, cap_reason);
  JsonArray *types = read_array (r, "layer_types", &ok, error);
  if (!ok)
    return FALSE;
  if (types != NULL)
    {
      if (json_array_get_length (types) != spec->n_layers)
        return moe_invalid (r, error, "field 'layer_types' has %u entries, not "
                            "'num_hidden_layers' (%" G_GUINT64_FORMAT "; hint: one per layer)",
                            json_array_get_length (types), spec->n_layers);
      for (guint i = 0; i < json_array_get_length (types); i++)
        {
          JsonNode *n = json_array_get_element (types, i);
          const char *t = JSON_NODE_HOLDS_VALUE (n)
                          && json_node_get_value_type (n) == G_TYPE_STRING
                          ? json_node_get_string (n) : NULL;
          const char *want = (i + 1) % spec->full_attn_interval != 0 ? "linear_attention"
                                                                     : "full_attention";
          if (t == NULL || (strcmp (t, "linear_attention") != 0
                            && strcmp (t, "full_attention") != 0))
            return moe_invalid (r, error, "field 'layer_types' entry %u is not "
                                "\"linear_attention\" or \"full_attention\"", i);
          if (strcmp (t, want) != 0)
            {
              g_set_error (error, MODEL_ERROR, MODEL_ERROR_UNSUPPORTED,
                           "%s: field 'layer_types' entry %u is \"%s\", not \"%s\" as "
                           "full_attention_interval %" G_GUINT64_FORMAT " has it; tandem "
                           "models the hybrid by its interval only", r->file, i, t, want,
                           spec->full_attn_interval);
              return FALSE;
            }
        }
    }
  return TRUE;
}

/* The MLA sizes (DeepSeek-V2 sec. 2.1). q_lora_rank null: queries projected directly
 * (DeepSeek-V2-Lite). The products heads x dims are the widths of Q, K/V-up and O and
 * are capped like the dense attention width. */
static gboolean
read_mla (const Reader *r, ModelSpec *spec, GError **error)
{
  if (!read_size (r, "q_lora_rank", FALSE, MODEL_MAX_HIDDEN, &spec->q_lora_rank, NULL, error)
      || !read_size (r, "kv_lora_rank", TRUE, MODEL_MAX_HIDDEN, &spec->kv_lora_rank, NULL,
                     error)
      || !read_size (r, "qk_nope_head_dim", TRUE, MODEL_MAX_HEADS, &spec->qk_nope_head_dim,
                     NULL, error)
      || !read_size (r, "qk_rope_head_dim", TRUE, MODEL_MAX_HEADS, &spec->qk_rope_head_dim,
                     NULL, error)
      || !read_size (r, "v_head_dim", TRUE, MODEL_MAX_HEADS, &spec->v_head_dim, NULL, error))
    return FALSE;
  const guint64 a = spec->n_heads;
  const guint64 qk = spec->qk_nope_head_dim + spec->qk_rope_head_dim;
  const guint64 widest = MAX (qk, spec->qk_nope_head_dim + spec->v_head_dim);
  if (a * widest > MODEL_MAX_FFN)
    return moe_invalid (r, error, "'num_attention_heads' x the MLA head dims = %"
                        G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT " is above the cap of %"
                        G_GUINT64_FORMAT " for the attention width (%s; hint: check the "
                        "config)", a, widest, MODEL_MAX_FFN, cap_reason);
  spec->head_dim = qk;
  spec->n_kv_heads = a;        /* every head has its own K and V after the up projection */
  return TRUE;
}

/* DeepSeek's MoE fields (also GLM-4.5's): routed and shared experts, leading dense
 * layers, moe_layer_freq 1, norm_topk_prob, the MTP modules. Absent counts keep what
 * `spec` holds (the family's default). */
static gboolean
read_deepseek_moe (const Reader *r, ModelSpec *spec, GError **error)
{
  guint64 freq = 1;
  if (!read_moe_experts (r, "n_routed_experts", "num_experts_per_tok",
                         "moe_intermediate_size", spec, error)
      || !read_count (r, "n_shared_experts", MODEL_MAX_EXPERTS, &spec->n_shared_experts,
                      error)
      || !read_count (r, "first_k_dense_replace", MODEL_MAX_LAYERS,
                      &spec->first_dense_layers, error)
      || !read_size (r, "moe_layer_freq", FALSE, MODEL_MAX_LAYERS, &freq, NULL, error)
      || !read_bool (r, "norm_topk_prob", &spec->router_norm_topk, error)
      || !read_count (r, "num_nextn_predict_layers", MODEL_MAX_LAYERS, &spec->mtp_layers,
                      error))
    return FALSE;
  if (freq != 1)
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_UNSUPPORTED,
                   "%s: field 'moe_layer_freq' is %" G_GUINT64_FORMAT "; tandem models "
                   "DeepSeek MoE layers with frequency 1 (every layer after "
                   "'first_k_dense_replace'), as every released DeepSeek model", r->file, freq);
      return FALSE;
    }
  /* the class's default of 3 in a config of fewer layers, which transformers builds as
   * all dense: capped, not refused as a field the file does not have */
  if (reader_member (r, "first_k_dense_replace") == NULL
      && spec->first_dense_layers > spec->n_layers)
    spec->first_dense_layers = spec->n_layers;
  if (spec->first_dense_layers > spec->n_layers)
    return moe_invalid (r, error, "field 'first_k_dense_replace' (%" G_GUINT64_FORMAT
                        ") exceeds 'num_hidden_layers' (%" G_GUINT64_FORMAT "; hint: the "
                        "dense layers are the first ones of the model)",
                        spec->first_dense_layers, spec->n_layers);
  if (spec->n_shared_experts * spec->moe_ffn > MODEL_MAX_FFN)
    return moe_invalid (r, error, "'n_shared_experts' x 'moe_intermediate_size' is above the "
                        "cap of %" G_GUINT64_FORMAT " (%s)", MODEL_MAX_FFN, cap_reason);
  spec->shared_expert_ffn = spec->n_shared_experts * spec->moe_ffn;
  return TRUE;
}

/* DeepSeek-V2 / V3 (DeepseekV2Config, DeepseekV3Config): MLA; n_routed_experts of
 * moe_intermediate_size, top num_experts_per_tok, n_shared_experts shared experts of the
 * same size; the first first_k_dense_replace layers dense (intermediate_size).
 * scoring_func softmax (V2) or sigmoid (V3); topk_method noaux_tc (V3) keeps an
 * e_score_correction_bias of E per layer. V3's num_nextn_predict_layers MTP modules are
 * counted apart. moe_layer_freq other than 1 was never released and is refused.
 * DeepSeekMoE (DeepseekConfig, model_type "deepseek": deepseek-moe-16b, arXiv 2401.06066)
 * has the same MoE fields over standard multi-head attention, without MLA. */
static gboolean
read_deepseek (const Reader *r, ModelSpec *spec, GError **error)
{
  gboolean ok;
  const gboolean mla = strcmp (spec->model_type, "deepseek") != 0;
  guint64 positions = 2048;
  /* The classes' defaults for absent counts. DeepseekV3Config
   * (configuration_deepseek_v3.py): n_shared_experts 1, first_k_dense_replace 3,
   * max_position_embeddings 4096; DeepseekV2Config: n_shared_experts 2,
   * first_k_dense_replace 0, max_position_embeddings 2048. A V3 config without the two
   * counts was read with no shared expert and no dense layer. An explicit null
   * n_shared_experts is none: DeepSeek's modeling code builds the shared experts only
   * when it is not None. "deepseek" keeps 0, 0 and 2048: its remote DeepseekConfig
   * (deepseek-moe-16b's configuration_deepseek.py) has n_shared_experts None,
   * first_k_dense_replace 0, max_position_embeddings 2048. "kimi_k2" (a remote class too)
   * keeps them as well. */
  const gboolean shared_null = reader_member_is_null (r, "n_shared_experts");
  if (strcmp (spec->model_type, "deepseek_v3") == 0)
    {
      spec->n_shared_experts = shared_null ? 0 : 1;
      spec->first_dense_layers = 3;
      positions = 4096;
      spec->router_norm_topk = TRUE;   /* DeepseekV3Config norm_topk_prob=True */
    }
  else if (strcmp (spec->model_type, "deepseek_v2") == 0)
    spec->n_shared_experts = shared_null ? 0 : 2;
  if (!read_llama_block (r, spec, positions, FALSE, error)
      || (mla && !read_mla (r, spec, error))
      || !read_deepseek_moe (r, spec, error))
    return FALSE;
  const char *scoring = read_string (r, "scoring_func", &ok, error);
  if (!ok)
    return FALSE;
  /* transformers' DeepseekV3 has no scoring_func or topk_method field: its router is
   * always the sigmoid with the e_score_correction_bias (modeling_deepseek_v3.py); a V3
   * config without them (a stripped file) is read so, where it read as V2's softmax
   * without the bias */
  const gboolean v3 = strcmp (spec->model_type, "deepseek_v3") == 0;
  if (scoring == NULL && v3)
    spec->router_score = MODEL_ROUTER_SIGMOID;
  else if (scoring == NULL || strcmp (scoring, "softmax") == 0)
    spec->router_score = MODEL_ROUTER_SOFTMAX;
  else if (strcmp (scoring, "sigmoid") == 0)
    spec->router_score = MODEL_ROUTER_SIGMOID;
  else
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_UNSUPPORTED,
                   "%s: field 'scoring_func' is '%s'; tandem knows \"softmax\" and "
                   "\"sigmoid\"", r->file, scoring);
      return FALSE;
    }
  const char *method = read_string (r, "topk_method", &ok, error);
  if (!ok)
    return FALSE;
  /* DeepseekV2Config / DeepseekV3Config: "greedy", "group_limited_greedy" (V2) or
   * "noaux_tc" (V3, the aux-loss-free bias); a slip ("noaux-tc") quietly dropped the bias */
  if (method != NULL && strcmp (method, "greedy") != 0
      && strcmp (method, "group_limited_greedy") != 0 && strcmp (method, "noaux_tc") != 0)
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_UNSUPPORTED,
                   "%s: field 'topk_method' is '%s'; tandem knows \"greedy\", "
                   "\"group_limited_greedy\" and \"noaux_tc\"", r->file, method);
      return FALSE;
    }
  spec->router_bias = method != NULL ? strcmp (method, "noaux_tc") == 0 : v3;
  return TRUE;
}

/* OLMo 2 (Olmo2Config, transformers modeling_olmo2.py): the Llama block with its two
 * RMSNorms after the attention and the MLP (post_attention_layernorm,
 * post_feedforward_layernorm) instead of before them, the same count, and q_norm, k_norm
 * RMSNorms over the whole q and k projections (num_attention_heads x head_dim and
 * num_key_value_heads x head_dim weights), not per head as Qwen3. Olmo2Config defaults
 * as LlamaConfig's: max_position_embeddings 2048, untied, no attention bias. */
static gboolean
read_olmo2 (const Reader *r, ModelSpec *spec, GError **error)
{
  if (!read_llama (r, spec, error))
    return FALSE;
  spec->qk_norm = TRUE;
  spec->qk_norm_full = TRUE;
  return TRUE;
}

/* OLMo 3 (Olmo3Config): OLMo 2's block; layer_types lists which layers attend within
 * sliding_window (default 4096), absent: three of every four, full attention where
 * (i + 1) % 4 == 0 (Olmo3Config's default). */
static gboolean
read_olmo3 (const Reader *r, ModelSpec *spec, GError **error)
{
  if (!read_olmo2 (r, spec, error))
    return FALSE;
  spec->sliding_window = 4096;
  if (!read_size (r, "sliding_window", FALSE, MODEL_MAX_POSITIONS, &spec->sliding_window,
                  NULL, error))
    return FALSE;
  if (json_object_has_member (r->obj, "layer_types"))
    return read_layer_types (r, spec, error);
  spec->n_sliding_layers = spec->n_layers - spec->n_layers / 4;
  return TRUE;
}

/* swiglu_limit (gpt-oss): a positive number; absent is GptOssConfig's default 7.0 */
static gboolean
read_glu_limit (const Reader *r, ModelSpec *spec, GError **error)
{
  spec->glu_limit = 7.0;
  JsonNode *node = reader_member (r, "swiglu_limit");
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node)
      || (json_node_get_value_type (node) != G_TYPE_DOUBLE
          && json_node_get_value_type (node) != G_TYPE_INT64))
    return wrong_type (r, "swiglu_limit", node, "a number", error);
  double v = json_node_get_double (node);
  if (!(v > 0.0 && v <= 1e6))
    return moe_invalid (r, error, "field 'swiglu_limit' is %g, must be a positive number", v);
  spec->glu_limit = v;
  return TRUE;
}

/* gpt-oss (GptOssConfig): num_local_experts SwiGLU experts of intermediate_size with
 * biases, top num_experts_per_tok, a router with a bias; q/k/v/o biases; one learned
 * attention sink per head; layer_types alternate sliding_window and full attention. */
static gboolean
read_gpt_oss (const Reader *r, ModelSpec *spec, GError **error)
{
  if (!read_llama (r, spec, error)
      || !read_moe_experts (r, "num_local_experts", "num_experts_per_tok",
                            "intermediate_size", spec, error)
      || !read_size (r, "sliding_window", TRUE, MODEL_MAX_POSITIONS, &spec->sliding_window,
                     NULL, error)
      || !read_layer_types (r, spec, error))
    return FALSE;
  spec->attn_bias = TRUE;
  spec->mlp_bias = TRUE;
  spec->router_bias = TRUE;
  spec->attn_sinks = TRUE;
  spec->router_score = MODEL_ROUTER_SOFTMAX;    /* softmax over the top-k logits */
  spec->router_norm_topk = TRUE;
  return read_bool (r, "attention_bias", &spec->attn_bias, error)
         && read_glu_limit (r, spec, error);
}

/* Llama 4 (Llama4TextConfig; a "llama4" config nests it under text_config, whose vision
 * tower tandem does not count): num_local_experts experts of intermediate_size, top
 * num_experts_per_tok by sigmoid, one shared expert of intermediate_size in every MoE
 * layer; layer i is MoE when (i + 1) % interleave_moe_layer_step == 0, the others dense
 * with intermediate_size_mlp. Chunked local attention (attention_chunk_size) on the rope
 * layers is counted in the attention FLOPs. */
static gboolean
read_llama4 (const Reader *r, ModelSpec *spec, GError **error)
{
  guint64 step = 1;
  if (!read_llama (r, spec, error)
      || !read_moe_experts (r, "num_local_experts", "num_experts_per_tok",
                            "intermediate_size", spec, error)
      || !read_size (r, "interleave_moe_layer_step", FALSE, MODEL_MAX_LAYERS, &step, NULL,
                     error))
    return FALSE;
  spec->moe_layer_step = step;
  spec->shared_expert_ffn = spec->moe_ffn;
  spec->n_shared_experts = 1;
  spec->router_score = MODEL_ROUTER_SIGMOID;
  /* Chunked attention on the rope layers: no_rope_layers[i] 1 (rope) or 0 (NoPE, global);
   * absent or empty, every no_rope_layer_interval-th layer (default 4) is NoPE
   * (Llama4TextConfig). */
  if (!read_count (r, "attention_chunk_size", MODEL_MAX_POSITIONS, &spec->attention_chunk,
                   error))
    return FALSE;
  if (spec->attention_chunk > 0)
    {
      gboolean ok;
      guint64 interval = 4;
      JsonArray *rope = read_array (r, "no_rope_layers", &ok, error);
      if (!ok || !read_size (r, "no_rope_layer_interval", FALSE, MODEL_MAX_LAYERS, &interval,
                             NULL, error))
        return FALSE;
      if (rope != NULL && json_array_get_length (rope) > 0)
        {
          if (json_array_get_length (rope) != spec->n_layers)
            return moe_invalid (r, error, "field 'no_rope_layers' has %u entries, not "
                                "'num_hidden_layers' (%" G_GUINT64_FORMAT "; hint: one per "
                                "layer)", json_array_get_length (rope), spec->n_layers);
          for (guint i = 0; i < json_array_get_length (rope); i++)
            {
              JsonNode *n = json_array_get_element (rope, i);
              if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64
                  || (json_node_get_int (n) != 0 && json_node_get_int (n) != 1))
                return moe_invalid (r, error, "field 'no_rope_layers' entry %u is not 0 or 1",
                                    i);
              spec->n_chunked_layers += (guint64) json_node_get_int (n);
            }
        }
      else
        spec->n_chunked_layers = spec->n_layers - spec->n_layers / interval;
    }
  if (step > 1
      && !read_size (r, "intermediate_size_mlp", TRUE, MODEL_MAX_FFN, &spec->ffn_hidden, NULL,
                     error))
    return FALSE;
  return TRUE;
}

static char *slipped_fields (const Reader *r);

/* A multimodal config ("llama4", "gemma3"): the text model's fields sit under
 * text_config, read by that family's reader; the vision tower is not counted. */
static gboolean
read_text_config (const Reader *r, ModelSpec *spec,
                  gboolean (*read) (const Reader *, ModelSpec *, GError **), GError **error)
{
  JsonNode *node = reader_member (r, "text_config");
  if (node == NULL)
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_MISSING_FIELD,
                   "%s: missing field 'text_config' (a %s config keeps the text model's "
                   "sizes there)", r->file, spec->model_type);
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return wrong_type (r, "text_config", node, "an object", error);
  /* its own table of asked keys, so a slip inside text_config is named too */
  g_autofree char *where = g_strdup_printf ("%s (text_config)", r->file);
  g_autoptr (GHashTable) asked = g_hash_table_new (g_str_hash, g_str_equal);
  Reader text = { json_node_get_object (node), where, asked };
  if (!read (&text, spec, error))
    return FALSE;
  g_free (spec->config_warning);
  spec->config_warning = slipped_fields (&text);
  return TRUE;
}

static gboolean
read_llama4_nested (const Reader *r, ModelSpec *spec, GError **error)
{
  return read_text_config (r, spec, read_llama4, error);
}

/* The Gemma family's block after read_common: a GeLU gate (the activation under each of
 * `keys` must be a gelu, run as gelu_pytorch_tanh), RMSNorm, rotary, `norms` RMSNorms a
 * layer, tied embeddings unless tie_word_embeddings says otherwise, attention_bias. */
static gboolean
read_gemma_block (const Reader *r, ModelSpec *spec, const char *family,
                  const char *const *keys, guint n_keys, int norms, GError **error)
{
  for (guint i = 0; i < n_keys; i++)
    {
      gboolean ok;
      const char *act = read_string (r, keys[i], &ok, error);
      if (!ok)
        return FALSE;
      if (act != NULL && !g_str_has_prefix (act, "gelu"))
        {
          g_set_error (error, MODEL_ERROR, MODEL_ERROR_UNSUPPORTED,
                       "%s: field '%s' is '%s'; %s is modelled with a GeLU gate "
                       "(\"gelu_pytorch_tanh\") only", r->file, keys[i], act, family);
          return FALSE;
        }
    }
  spec->mlp = MODEL_MLP_SWIGLU;      /* gate, up, down: the gated shapes */
  spec->gelu_gate = TRUE;
  spec->norm = MODEL_NORM_RMS;
  spec->pos = MODEL_POS_ROTARY;
  spec->norms_per_block = norms;
  spec->tied_embeddings = TRUE;
  return read_bool (r, "tie_word_embeddings", &spec->tied_embeddings, error)
         && read_bool (r, "attention_bias", &spec->attn_bias, error);
}

static const char *const gemma_act_key[] = { "hidden_activation" };

/* Gemma 2 (Gemma2Config): own head_dim, GeGLU (hidden_activation gelu_pytorch_tanh),
 * four RMSNorms per layer (input, post-attention, pre- and post-feedforward), tied
 * embeddings, sliding_window on every other layer from layer 0. Logit soft-capping has no
 * parameters and is not counted. */
static gboolean
read_gemma2 (const Reader *r, ModelSpec *spec, GError **error)
{
  /* Gemma2Config defaults: max_position_embeddings 8192, head_dim 256 (not h / a: 2304 / 8
   * = 288 for Gemma 2 2B) */
  spec->head_dim = 256;
  spec->sliding_window = 4096;       /* Gemma2Config default */
  /* num_key_value_heads 4 where absent (Gemma 2 2B's; a file without it read 8 KV heads,
   * 2.74 B parameters for the 2.61 B model); null: the heads */
  spec->n_kv_heads = reader_member_is_null (r, "num_key_value_heads") ? 0 : 4;
  if (!read_common (r, &llama_names, TRUE, 8192, spec, error)
      || !read_gemma_block (r, spec, "gemma2", gemma_act_key, 1, 4, error)
      || !read_size (r, "sliding_window", FALSE, MODEL_MAX_POSITIONS, &spec->sliding_window,
                     NULL, error))
    return FALSE;
  return read_layer_types (r, spec, error);
}

/* Gemma (GemmaConfig, transformers modeling_gemma.py): the Llama block with a GeLU gate
 * (hidden_act "gelu", run as gelu_pytorch_tanh; hidden_activation in later configs), own
 * head_dim (default 256, not h / a: 3072 / 16 = 192 for Gemma 7B), tied embeddings, two
 * RMSNorms a layer. GemmaConfig default max_position_embeddings 8192. */
static gboolean
read_gemma (const Reader *r, ModelSpec *spec, GError **error)
{
  static const char *const act_keys[] = { "hidden_activation", "hidden_act" };
  spec->head_dim = 256;
  return read_common (r, &llama_names, TRUE, 8192, spec, error)
         && read_gemma_block (r, spec, "gemma", act_keys, G_N_ELEMENTS (act_keys), 2, error);
}

/* sliding_window, and which layers use it: as `layer_types` lists them where the config
 * has one, else every layer but each sliding_window_pattern-th (`pattern`, the config
 * class's default where absent; Gemma3TextConfig, Cohere2Config: layer i is full
 * attention when (i + 1) % pattern == 0). spec->sliding_window holds the class's default
 * window on entry. */
static gboolean
read_sliding_pattern (const Reader *r, ModelSpec *spec, guint64 pattern, GError **error)
{
  if (!read_size (r, "sliding_window", FALSE, MODEL_MAX_POSITIONS, &spec->sliding_window,
                  NULL, error)
      || !read_size (r, "sliding_window_pattern", FALSE, MODEL_MAX_LAYERS, &pattern, NULL,
                     error))
    return FALSE;
  if (json_object_has_member (r->obj, "layer_types"))
    return read_layer_types (r, spec, error);
  spec->n_sliding_layers = spec->n_layers - spec->n_layers / pattern;
  return TRUE;
}

/* Gemma 3 (Gemma3TextConfig, transformers modeling_gemma3.py): Gemma 2's block (GeGLU,
 * four RMSNorms a layer, tied embeddings) with q_norm and k_norm over head_dim per head
 * (Gemma3Attention, as Qwen3); every layer attends within sliding_window but each
 * sliding_window_pattern-th (default 6: five local, one global), or as layer_types lists
 * them. Absent fields take Gemma3TextConfig's defaults: vocab_size 262208, 8 heads, 4 KV
 * heads, head_dim 256, max_position_embeddings 131072, sliding_window 4096; the released
 * gemma-3-4b config's text_config names little else than hidden_size, intermediate_size
 * and num_hidden_layers. */
static gboolean
read_gemma3 (const Reader *r, ModelSpec *spec, GError **error)
{
  spec->vocab = 262208;
  spec->n_heads = 8;
  spec->n_kv_heads = 4;
  spec->head_dim = 256;
  spec->qk_norm = TRUE;
  spec->sliding_window = 4096;
  return read_common (r, &llama_names, TRUE, 131072, spec, error)
         && read_gemma_block (r, spec, "gemma3", gemma_act_key, 1, 4, error)
         && read_sliding_pattern (r, spec, 6, error);
}

/* "gemma3" (Gemma3ForConditionalGeneration): the text model under text_config; its
 * SigLIP vision tower and projector (about 0.42B of the 4B, 12B and 27B) not counted */
static gboolean
read_gemma3_nested (const Reader *r, ModelSpec *spec, GError **error)
{
  return read_text_config (r, spec, read_gemma3, error);
}

/* The block's kinds, the same bias on the attention and the MLP, and tie_word_embeddings
 * over the family's default `tied`. */
static gboolean
set_block (const Reader *r, ModelSpec *spec, ModelMlpKind mlp, ModelNormKind norm,
           ModelPosKind pos, gboolean bias, gboolean tied, GError **error)
{
  spec->mlp = mlp;
  spec->norm = norm;
  spec->pos = pos;
  spec->attn_bias = bias;
  spec->mlp_bias = bias;
  spec->tied_embeddings = tied;
  return read_bool (r, "tie_word_embeddings", &spec->tied_embeddings, error);
}

static gboolean
read_gpt2 (const Reader *r, ModelSpec *spec, GError **error)
{
  gboolean ok;
  /* GPT2Config: n_positions 1024, n_inner None -> 4 n_embd, tie_word_embeddings True.
   * `num_key_value_heads` is a tandem extension (HF gpt2 has no GQA) so that custom
   * specs of GQA GeLU models round-trip through config_json. */
  if (!read_common (r, &gpt2_names, FALSE, 1024, spec, error))
    return FALSE;
  read_string (r, "activation_function", &ok, error);
  return ok && set_block (r, spec, MODEL_MLP_GELU, MODEL_NORM_LAYER, MODEL_POS_LEARNED, TRUE,
                          TRUE, error);
}

static gboolean
read_gpt_neox (const Reader *r, ModelSpec *spec, GError **error)
{
  gboolean ok;
  /* GPTNeoXConfig: max_position_embeddings 2048, tie_word_embeddings False,
   * attention_bias True, rotary_pct 0.25 (RoPE turns a quarter of each q and k head:
   * GPTNeoXAttention's rotary_ndims; it changes the rotary op's element-wise work, not
   * the parameters or the GEMMs). use_parallel_residual does not change them either and
   * is ignored. */
  if (!read_common (r, &neox_names, TRUE, 2048, spec, error))
    return FALSE;
  spec->rotary_fraction = 0.25;
  /* newer transformers save rotary_pct as rope_parameters' partial_rotary_factor
   * (GPTNeoXConfig.convert_rope_params_to_dict); an older file's rotary_pct wins */
  if (!read_rotary_fraction (r, &spec->rotary_fraction, error)
      || !read_rotary_fraction_key (r, "rotary_pct", &spec->rotary_fraction, error))
    return FALSE;
  read_string (r, "hidden_act", &ok, error);
  if (!ok)
    return FALSE;
  spec->mlp = MODEL_MLP_GELU;
  spec->norm = MODEL_NORM_LAYER;
  spec->pos = MODEL_POS_ROTARY;
  spec->tied_embeddings = FALSE;
  spec->attn_bias = TRUE;
  spec->mlp_bias = TRUE;
  if (!read_bool (r, "tie_word_embeddings", &spec->tied_embeddings, error)
      || !read_bool (r, "attention_bias", &spec->attn_bias, error))
    return FALSE;
  return TRUE;
}

static gboolean
read_opt (const Reader *r, ModelSpec *spec, GError **error)
{
  gboolean ok, have_proj = FALSE;
  guint64 proj = 0;
  gboolean bias = TRUE;
  /* OPTConfig: max_position_embeddings 2048, tie_word_embeddings True, enable_bias True.
   * The MLP is relu (fc1, fc2): same shapes as GeLU, so MODEL_MLP_GELU. */
  if (!read_common (r, &opt_names, TRUE, 2048, spec, error))
    return FALSE;
  read_string (r, "activation_function", &ok, error);
  if (!ok || !read_size (r, "word_embed_proj_dim", FALSE, MODEL_MAX_HIDDEN, &proj, &have_proj,
                         error))
    return FALSE;
  if (have_proj && proj != spec->hidden)
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_UNSUPPORTED,
                   "%s: field 'word_embed_proj_dim' (%" G_GUINT64_FORMAT ") differs from "
                   "'hidden_size'; OPT embedding projections are not modelled",
                   r->file, proj);
      return FALSE;
    }
  spec->mlp = MODEL_MLP_GELU;
  spec->norm = MODEL_NORM_LAYER;
  spec->pos = MODEL_POS_LEARNED;
  spec->tied_embeddings = TRUE;
  if (!read_bool (r, "tie_word_embeddings", &spec->tied_embeddings, error)
      || !read_bool (r, "enable_bias", &bias, error))
    return FALSE;
  spec->attn_bias = bias;
  spec->mlp_bias = bias;
  return TRUE;
}

/* ---- families added with the config.json sweep's second round ------------------------ */

/* `a`, or `b` when the file has `b` and not `a`: the old spellings a config class still
 * takes (FalconConfig and BloomConfig attribute_map "n_layer", "n_head"; their n_embed
 * keyword for hidden_size). A missing field's message quotes `a`. */
static const char *
pick_key (const Reader *r, const char *a, const char *b)
{
  return !json_object_has_member (r->obj, a) && json_object_has_member (r->obj, b) ? b : a;
}

/* Falcon (FalconConfig, transformers modeling_falcon.py), and the first releases' remote
 * code spellings: "RefinedWebModel" (Falcon-7B) and "RefinedWeb" (Falcon-40B), whose
 * n_layer, n_head and n_head_kv FalconConfig still reads. FalconAttention's fused
 * query_key_value is h -> (a + 2 g) d with g = num_kv_heads (n_head_kv; default the
 * heads) under new_decoder_architecture or without multi_query, else 1 (multi-query,
 * Falcon-7B); its dense h -> h; bias (default false) on both and on the MLP; the MLP is
 * dense_h_to_4h, GeLU, dense_4h_to_h with ffn_hidden_size (default 4h). LayerNorms;
 * FalconDecoderLayer has two a layer (input and post-attention without parallel_attn;
 * ln_attn and ln_mlp when num_ln_in_parallel_attn is 2, its default under
 * new_decoder_architecture) and else one that attention and MLP share. Rotary over the
 * whole head, or ALiBi with alibi; tied (tie_word_embeddings default true);
 * max_position_embeddings default 2048. "RefinedWeb" configs predate
 * new_decoder_architecture and mean it (text-generation-inference's RWConfig: absent and
 * model_type RefinedWeb -> true). Attention and MLP run side by side (parallel_attn,
 * default true, or new_decoder_architecture): no count changes, and tandem's step program
 * still runs them one after the other. */
static gboolean
read_falcon (const Reader *r, ModelSpec *spec, GError **error)
{
  gboolean multi_query = TRUE, parallel = TRUE, bias = FALSE, alibi = FALSE, ok;
  gboolean new_arch = strcmp (spec->model_type, "RefinedWeb") == 0;
  const FieldNames f = {
    pick_key (r, "hidden_size", "n_embed"), "ffn_hidden_size",
    pick_key (r, "num_hidden_layers", "n_layer"), pick_key (r, "num_attention_heads", "n_head"),
    pick_key (r, "num_kv_heads", "n_head_kv"), NULL, "vocab_size", "max_position_embeddings",
  };
  if (!read_bool (r, "new_decoder_architecture", &new_arch, error)
      || !read_bool (r, "multi_query", &multi_query, error)
      || !read_bool (r, "parallel_attn", &parallel, error)
      || !read_bool (r, "bias", &bias, error)
      || !read_bool (r, "alibi", &alibi, error)
      || !read_common (r, &f, FALSE, 2048, spec, error))
    return FALSE;
  guint64 n_ln = new_arch ? 2 : 1;
  read_string (r, "activation", &ok, error);
  if (!ok || !read_count (r, "num_ln_in_parallel_attn", 2, &n_ln, error))
    return FALSE;
  if (!new_arch && multi_query)
    spec->n_kv_heads = 1;
  spec->norms_per_block = !parallel || n_ln == 2 ? 2 : 1;
  spec->parallel_block = parallel || new_arch;
  return set_block (r, spec, MODEL_MLP_GELU, MODEL_NORM_LAYER,
                    alibi ? MODEL_POS_ALIBI : MODEL_POS_ROTARY, bias, TRUE, error);
}

/* BLOOM (BloomConfig, transformers modeling_bloom.py): n_layer, n_head (or
 * num_hidden_layers, num_attention_heads), hidden_size (or n_embed); BloomAttention's
 * query_key_value h -> 3h and dense h -> h, BloomMLP's dense_h_to_4h (always 4h: the
 * config has no width; its "n_inner": null is not read), GeLU and dense_4h_to_h, every
 * one with a bias; LayerNorms: word_embeddings_layernorm after the embedding, two a layer,
 * ln_f; ALiBi; tied. BloomConfig has no position field: seq_length, where a config has
 * one, else 2048, BLOOM's training length. apply_residual_connection_post_layernorm
 * moves the residual's source, not a count. */
static gboolean
read_bloom (const Reader *r, ModelSpec *spec, GError **error)
{
  const FieldNames f = {
    pick_key (r, "hidden_size", "n_embed"), NULL, pick_key (r, "n_layer", "num_hidden_layers"),
    pick_key (r, "n_head", "num_attention_heads"), NULL, NULL, "vocab_size", "seq_length",
  };
  spec->embed_norm = TRUE;
  return read_common (r, &f, FALSE, 2048, spec, error)
         && set_block (r, spec, MODEL_MLP_GELU, MODEL_NORM_LAYER, MODEL_POS_ALIBI, TRUE, TRUE,
                       error);
}

/* An object member read with its own Reader (DBRX's attn_config and ffn_config): *ok
 * FALSE on error, `sub` untouched when absent (returns FALSE then). Messages name the
 * file and the member. */
static gboolean
read_nested (const Reader *r, const char *key, Reader *sub, char **where, gboolean *ok,
             GError **error)
{
  JsonNode *node = reader_member (r, key);
  *ok = TRUE;
  if (node == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      *ok = wrong_type (r, key, node, "an object", error);
      return FALSE;
    }
  *where = g_strdup_printf ("%s (%s)", r->file, key);
  sub->obj = json_node_get_object (node);
  sub->file = *where;
  sub->asked = NULL;
  return TRUE;
}

/* DBRX (DbrxConfig, transformers modeling_dbrx.py): d_model, n_heads, n_layers,
 * max_seq_len (default 2048), vocab_size; attn_config.kv_n_heads (default 1) KV heads of
 * d_model / n_heads in a fused Wqkv, no biases; ffn_config's moe_num_experts GLU experts
 * (w1, v1, w2: SwiGLU with ffn_act_fn {"name": "silu"}, the default) of ffn_hidden_size,
 * top moe_top_k by a softmax router (h x E, no bias), renormalised unless
 * moe_normalize_expert_weights is null; nn.LayerNorm(bias=False) twice a layer and at
 * the end; rotary; untied (tie_word_embeddings default false). attn_config.clip_qkv is a
 * clamp, no count. */
static gboolean
read_dbrx (const Reader *r, ModelSpec *spec, GError **error)
{
  static const FieldNames f = {
    "d_model", NULL, "n_layers", "n_heads", NULL, NULL, "vocab_size", "max_seq_len",
  };
  g_autofree char *attn_where = NULL, *ffn_where = NULL;
  Reader attn = { 0 }, ffn = { 0 };
  gboolean ok;
  if (!read_common (r, &f, FALSE, 2048, spec, error))
    return FALSE;
  if (read_nested (r, "attn_config", &attn, &attn_where, &ok, error))
    {
      spec->n_kv_heads = 1;
      if (!read_size (&attn, "kv_n_heads", FALSE, MODEL_MAX_HEADS, &spec->n_kv_heads, NULL,
                      error))
        return FALSE;
    }
  else if (!ok)
    return FALSE;
  else
    spec->n_kv_heads = 1;
  if (spec->n_kv_heads > spec->n_heads || spec->n_heads % spec->n_kv_heads != 0)
    return moe_invalid (r, error, "field 'attn_config.kv_n_heads' (%" G_GUINT64_FORMAT ") does "
                        "not divide 'n_heads' (%" G_GUINT64_FORMAT ")", spec->n_kv_heads,
                        spec->n_heads);
  if (!read_nested (r, "ffn_config", &ffn, &ffn_where, &ok, error))
    {
      if (ok)
        g_set_error (error, MODEL_ERROR, MODEL_ERROR_MISSING_FIELD,
                     "%s: missing field 'ffn_config' (a dbrx config keeps its experts there)",
                     r->file);
      return FALSE;
    }
  if (!read_moe_experts (&ffn, "moe_num_experts", "moe_top_k", "ffn_hidden_size", spec, error))
    return FALSE;
  spec->ffn_hidden = spec->moe_ffn;   /* no dense layer; as Mixtral's */
  JsonNode *act = json_object_get_member (ffn.obj, "ffn_act_fn");
  if (act != NULL && JSON_NODE_HOLDS_OBJECT (act))
    {
      const char *name = json_object_get_string_member_with_default (
        json_node_get_object (act), "name", "silu");
      if (strcmp (name, "silu") != 0)
        {
          g_set_error (error, MODEL_ERROR, MODEL_ERROR_UNSUPPORTED,
                       "%s: field 'ffn_act_fn' names '%s'; DBRX is modelled with SiLU GLU "
                       "experts only", ffn.file, name);
          return FALSE;
        }
    }
  JsonNode *norm_w = json_object_get_member (ffn.obj, "moe_normalize_expert_weights");
  spec->router_norm_topk = norm_w == NULL || !JSON_NODE_HOLDS_NULL (norm_w);
  spec->router_score = MODEL_ROUTER_SOFTMAX;
  return set_block (r, spec, MODEL_MLP_SWIGLU, MODEL_NORM_LAYER_NOBIAS, MODEL_POS_ROTARY, FALSE,
                    FALSE, error);
}

/* OLMoE (OlmoeConfig, transformers modeling_olmoe.py): OLMo 2's q_norm and k_norm over
 * the whole q and k projections, before the pre-norm Llama block whose MLP is
 * num_experts SwiGLU experts of intermediate_size, top num_experts_per_tok by softmax
 * (h x E, no bias), renormalised only with norm_topk_prob (default false); every layer
 * MoE. OlmoeConfig defaults: max_position_embeddings 4096, untied. clip_qkv is a clamp,
 * no count. */
static gboolean
read_olmoe (const Reader *r, ModelSpec *spec, GError **error)
{
  if (!read_llama_block (r, spec, 4096, FALSE, error)
      || !read_moe_experts (r, "num_experts", "num_experts_per_tok", "intermediate_size",
                            spec, error)
      || !read_bool (r, "norm_topk_prob", &spec->router_norm_topk, error))
    return FALSE;
  spec->qk_norm = TRUE;
  spec->qk_norm_full = TRUE;
  spec->router_score = MODEL_ROUTER_SOFTMAX;
  return TRUE;
}

/* Llama's field names over an MLP that is not gated (StarCoder2, Phi): hidden_act must be
 * a string, and any one gives the same shapes. */
static gboolean
read_ungated_block (const Reader *r, ModelSpec *spec, guint64 positions, GError **error)
{
  gboolean ok;
  if (!read_common (r, &llama_names, TRUE, positions, spec, error))
    return FALSE;
  read_string (r, "hidden_act", &ok, error);
  return ok;
}

/* StarCoder2 (Starcoder2Config, transformers modeling_starcoder2.py): GQA q, k, v, o and
 * an MLP c_fc (intermediate_size), hidden_act (gelu_pytorch_tanh), c_proj, not gated,
 * every one with a bias under use_bias (default true); LayerNorms with bias; rotary;
 * every layer within sliding_window when it is set (as Mistral); Starcoder2Config
 * defaults max_position_embeddings 4096 and tie_word_embeddings true. */
static gboolean
read_starcoder2 (const Reader *r, ModelSpec *spec, GError **error)
{
  gboolean bias = TRUE;
  /* Starcoder2Config num_key_value_heads 2 where absent (a StarCoder2-3B-shaped file
   * without it read 24: 3.55 B parameters for 3.03 B); null: the heads */
  spec->n_kv_heads = reader_member_is_null (r, "num_key_value_heads") ? 0 : 2;
  if (!read_ungated_block (r, spec, 4096, error) || !read_bool (r, "use_bias", &bias, error)
      || !read_size (r, "sliding_window", FALSE, MODEL_MAX_POSITIONS, &spec->sliding_window,
                     NULL, error))
    return FALSE;
  spec->n_sliding_layers = spec->sliding_window > 0 ? spec->n_layers : 0;
  return set_block (r, spec, MODEL_MLP_GELU, MODEL_NORM_LAYER, MODEL_POS_ROTARY, bias, TRUE,
                    error);
}

/* Command R (CohereConfig, transformers modeling_cohere.py): the Llama projections (GQA,
 * attention_bias default false) and SwiGLU MLP in a parallel block: one CohereLayerNorm
 * (a LayerNorm with a weight and no bias) feeds both, and both add to the block input;
 * with use_qk_norm (Command R+) a CohereLayerNorm of every q and k head, its own weights
 * a head ((a + g) d). logit_scale multiplies the logits: a scalar. CohereConfig defaults:
 * max_position_embeddings 8192, tie_word_embeddings true. */
static gboolean
read_cohere (const Reader *r, ModelSpec *spec, GError **error)
{
  gboolean qk_norm = FALSE;
  if (!read_llama_block (r, spec, 8192, TRUE, error)
      || !read_bool (r, "use_qk_norm", &qk_norm, error))
    return FALSE;
  spec->norm = MODEL_NORM_LAYER_NOBIAS;
  spec->norms_per_block = 1;
  spec->parallel_block = TRUE;
  spec->qk_norm = qk_norm;
  spec->qk_norm_full = qk_norm;
  return TRUE;
}

/* Command R7B (Cohere2Config, modeling_cohere2.py): Command R's parallel block without
 * q/k norms; every layer but each sliding_window_pattern-th (default 4) attends within
 * sliding_window (default 4096), or as layer_types lists them. Its full-attention layers
 * apply no rotary embedding; tandem's rotary op still counts them (element-wise work,
 * a quarter of it). */
static gboolean
read_cohere2 (const Reader *r, ModelSpec *spec, GError **error)
{
  spec->sliding_window = 4096;
  return read_cohere (r, spec, error) && read_sliding_pattern (r, spec, 4, error);
}

/* InternLM2 (InternLM2Config, the remote configuration_internlm2.py of internlm/internlm2-*;
 * modeling_internlm2.py): Llama's shapes under other tensor names (attention.wqkv fused
 * h -> (a + 2 g) d, attention.wo, feed_forward.w1, w3, w2, attention_norm, ffn_norm,
 * tok_embeddings, output) and the config's own field for the attention biases: "bias"
 * (default true) on wqkv and wo; the MLP has none. InternLM2Config defaults:
 * max_position_embeddings 2048, untied. */
static gboolean
read_internlm2 (const Reader *r, ModelSpec *spec, GError **error)
{
  gboolean bias = TRUE;
  if (!read_llama (r, spec, error) || !read_bool (r, "bias", &bias, error))
    return FALSE;
  spec->attn_bias = bias;
  return TRUE;
}

/* Phi-1.5 and Phi-2 (PhiConfig, transformers modeling_phi.py): q, k, v and dense (o) and
 * an MLP fc1 (intermediate_size), hidden_act (gelu_new), fc2, not gated, every one with a
 * bias; one LayerNorm a layer feeds attention and MLP side by side (PhiDecoderLayer:
 * residual + attention + MLP); rotary over partial_rotary_factor of each head (default
 * 0.5); final_layernorm; lm_head with a bias of vocab_size. PhiConfig defaults:
 * max_position_embeddings 2048, untied. qk_layernorm (per-head LayerNorms with biases)
 * is refused: no released Phi uses it. */
static gboolean
read_phi (const Reader *r, ModelSpec *spec, GError **error)
{
  gboolean qk_layernorm = FALSE;
  if (!read_ungated_block (r, spec, 2048, error)
      || !read_bool (r, "qk_layernorm", &qk_layernorm, error))
    return FALSE;
  if (qk_layernorm)
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_UNSUPPORTED,
                   "%s: field 'qk_layernorm' is true; tandem models Phi without q/k "
                   "LayerNorms (phi-1, phi-1.5, phi-2)", r->file);
      return FALSE;
    }
  spec->rotary_fraction = 0.5;
  spec->norms_per_block = 1;
  spec->parallel_block = TRUE;
  spec->head_bias = TRUE;
  return read_rotary_fraction (r, &spec->rotary_fraction, error)
         && set_block (r, spec, MODEL_MLP_GELU, MODEL_NORM_LAYER, MODEL_POS_ROTARY, TRUE,
                       FALSE, error);
}

/* What GLM-4 (Glm4Config) and GLM-4.5 (Glm4MoeConfig) share: head_dim default 128 (not
 * h / a), the Llama projections with biases on q, k and v only under attention_bias (the
 * family default `qkv_bias`; o_proj has none), rotary over partial_rotary_factor of each
 * head (default 0.5), max_position_embeddings default 131072, untied. */
static gboolean
read_glm_block (const Reader *r, ModelSpec *spec, gboolean qkv_bias, GError **error)
{
  spec->head_dim = 128;
  spec->rotary_fraction = 0.5;
  if (!read_llama_block (r, spec, 131072, FALSE, error)
      || !read_rotary_fraction (r, &spec->rotary_fraction, error))
    return FALSE;
  spec->attn_bias = FALSE;
  if (!read_bool (r, "attention_bias", &qkv_bias, error))
    return FALSE;
  spec->attn_qkv_bias = qkv_bias;
  return TRUE;
}

/* GLM-4 (Glm4Config, transformers modeling_glm4.py: GLM-4-9B-0414, GLM-4-32B-0414): the
 * GLM block (attention_bias default true) with four RMSNorms a layer
 * (Glm4DecoderLayer: input, post_self_attn, post_attention, post_mlp) and the SwiGLU MLP
 * as one gate_up_proj. */
static gboolean
read_glm4 (const Reader *r, ModelSpec *spec, GError **error)
{
  if (!read_glm_block (r, spec, TRUE, error))
    return FALSE;
  spec->norms_per_block = 4;
  return TRUE;
}

/* GLM-4.5 (Glm4MoeConfig, transformers modeling_glm4_moe.py): the GLM block
 * (attention_bias default false) with per-head q/k RMSNorms under use_qk_norm, two norms a
 * layer, and DeepSeek-V3's MoE: n_routed_experts of moe_intermediate_size, top
 * num_experts_per_tok by sigmoid with an e_score_correction_bias (Glm4MoeTopkRouter, always
 * present), renormalised (norm_topk_prob default true), n_shared_experts (default 1), the
 * first first_k_dense_replace (default 1) layers dense of intermediate_size;
 * num_nextn_predict_layers MTP modules counted apart from the total (transformers does
 * not load them). routed_scaling_factor, n_group and topk_group change no count. */
static gboolean
read_glm4_moe (const Reader *r, ModelSpec *spec, GError **error)
{
  gboolean qk_norm = FALSE;
  spec->n_shared_experts = 1;
  spec->first_dense_layers = 1;
  spec->router_norm_topk = TRUE;
  if (!read_glm_block (r, spec, FALSE, error)
      || !read_deepseek_moe (r, spec, error)
      || !read_bool (r, "use_qk_norm", &qk_norm, error))
    return FALSE;
  spec->qk_norm = qk_norm;
  spec->router_score = MODEL_ROUTER_SIGMOID;
  spec->router_bias = TRUE;
  return TRUE;
}

/* Qwen2-VL and Qwen2.5-VL (Qwen2VLConfig, Qwen2_5_VLConfig): the text model is Qwen2's
 * (q/k/v biases, o none; Qwen2's sliding-window fields), its sizes at the top level or,
 * as newer transformers save them, under text_config; multimodal rotary (mrope) turns the
 * same elements. The vision tower (vision_config: a ViT of about 0.68B for the 7B) and
 * its merger are not modelled: only the language model is counted and simulated.
 * max_position_embeddings default 32768, untied. */
static gboolean
read_qwen2_vl_text (const Reader *r, ModelSpec *spec, GError **error)
{
  return read_llama_block (r, spec, 32768, FALSE, error);
}

static gboolean
read_qwen2_vl (const Reader *r, ModelSpec *spec, GError **error)
{
  if (!json_object_has_member (r->obj, "hidden_size")
      && json_object_has_member (r->obj, "text_config"))
    return read_text_config (r, spec, read_qwen2_vl_text, error);
  return read_qwen2_vl_text (r, spec, error);
}

/* Nemotron-H (transformers NemotronHConfig, configuration_nemotron_h.py and
 * modeling_nemotron_h.py; nvidia/Nemotron-H-8B-Base-8K and -56B-Base-8K config.json): a
 * hybrid of Mamba-2 mixer, self-attention and MLP layers, one per character of
 * hybrid_override_pattern, or of its list form layers_block_type (model.h layer_pattern;
 * 'E', a MoE layer of the newer Nemotron 3 configs, is not modelled). Every layer is one RMSNorm (no bias) and its mixer or MLP;
 * attention has no position encoding and no bias (attention_bias false); the MLP is
 * up_proj -> relu2 -> down_proj (mlp_hidden_act "relu2", squared ReLU, ungated) with
 * mlp_bias; the Mamba projections carry use_bias / mamba_proj_bias (false in the
 * published configs, not counted). NemotronHConfig defaults: vocab 131072, hidden 4096,
 * 32 heads, 8 KV heads, head_dim 128, intermediate 21504, mamba_num_heads 128,
 * mamba_head_dim 64, n_groups 8, ssm_state_size 128, conv_kernel 4, expand 2,
 * use_conv_bias true, chunk_size 128, tie_word_embeddings false. The published 8B / 56B
 * configs spell the head width `attention_head_dim` (their remote code) where
 * transformers' class has head_dim; both are read. The older keys mamba_n_groups,
 * mamba_d_conv, mamba_expand, mamba_conv_bias and mamba_chunk_size are read as
 * NemotronHConfig.__post_init__ maps them. */
static gboolean
read_nemotron_h (const Reader *r, ModelSpec *spec, GError **error)
{
  gboolean ok, have_hd = FALSE, mlp_bias = FALSE;
  guint64 hd = 0, expand = 2;
  spec->vocab = 131072;
  spec->n_heads = 32;
  spec->n_kv_heads = 8;
  spec->head_dim = 128;
  if (!read_size (r, "attention_head_dim", FALSE, MODEL_MAX_HEADS, &hd, &have_hd, error)
      || !read_common (r, &llama_names, FALSE, 4096, spec, error))
    return FALSE;
  if (!json_object_has_member (r->obj, "intermediate_size"))
    spec->ffn_hidden = 21504;
  if (have_hd && !json_object_has_member (r->obj, "head_dim"))
    spec->head_dim = hd;
  if (spec->n_heads * spec->head_dim > MODEL_MAX_FFN)
    return moe_invalid (r, error, "'num_attention_heads' x head_dim is above the cap of %"
                        G_GUINT64_FORMAT " (%s)", MODEL_MAX_FFN, cap_reason);
  spec->mamba_heads = 128;
  spec->mamba_head_dim = 64;
  spec->mamba_groups = 8;
  spec->mamba_state = 128;
  spec->mamba_conv = 4;
  spec->mamba_chunk = 128;
  spec->mamba_conv_bias = TRUE;
  if (!read_size (r, "mamba_num_heads", FALSE, MODEL_MAX_HEADS, &spec->mamba_heads, NULL,
                  error)
      || !read_size (r, "mamba_head_dim", FALSE, MODEL_MAX_HEADS, &spec->mamba_head_dim, NULL,
                     error)
      || !read_size (r, "mamba_n_groups", FALSE, MODEL_MAX_HEADS, &spec->mamba_groups, NULL,
                     error)
      || !read_size (r, "n_groups", FALSE, MODEL_MAX_HEADS, &spec->mamba_groups, NULL, error)
      || !read_size (r, "ssm_state_size", FALSE, MODEL_MAX_HEADS, &spec->mamba_state, NULL,
                     error)
      || !read_size (r, "mamba_d_conv", FALSE, 64, &spec->mamba_conv, NULL, error)
      || !read_size (r, "conv_kernel", FALSE, 64, &spec->mamba_conv, NULL, error)
      || !read_size (r, "mamba_expand", FALSE, 64, &expand, NULL, error)
      || !read_size (r, "expand", FALSE, 64, &expand, NULL, error)
      || !read_size (r, "mamba_chunk_size", FALSE, MODEL_MAX_POSITIONS, &spec->mamba_chunk,
                     NULL, error)
      || !read_size (r, "chunk_size", FALSE, MODEL_MAX_POSITIONS, &spec->mamba_chunk, NULL,
                     error)
      || !read_bool (r, "mamba_conv_bias", &spec->mamba_conv_bias, error)
      || !read_bool (r, "use_conv_bias", &spec->mamba_conv_bias, error)
      || !read_bool (r, "mlp_bias", &mlp_bias, error))
    return FALSE;
  const char *act = read_string (r, "mlp_hidden_act", &ok, error);
  if (!ok)
    return FALSE;
  if (act != NULL && strcmp (act, "relu2") != 0)
    return moe_invalid (r, error, "field 'mlp_hidden_act' is \"%s\"; tandem models Nemotron-H's "
                        "ungated MLP with \"relu2\" (squared ReLU) only", act);
  act = read_string (r, "mamba_hidden_act", &ok, error);
  if (!ok)
    return FALSE;
  if (act != NULL && strcmp (act, "silu") != 0)
    return moe_invalid (r, error, "field 'mamba_hidden_act' is \"%s\"; the Mamba-2 mixer's "
                        "gate is modelled as \"silu\" only", act);
  const guint64 d_inner = spec->mamba_heads * spec->mamba_head_dim;
  if (d_inner > MODEL_MAX_FFN || spec->mamba_groups * spec->mamba_state > MODEL_MAX_FFN)
    return moe_invalid (r, error, "the Mamba width (mamba_num_heads x mamba_head_dim, or "
                        "n_groups x ssm_state_size) is above the cap of %" G_GUINT64_FORMAT
                        " (%s; hint: check the config)", MODEL_MAX_FFN, cap_reason);
  /* modeling_nemotron_h.py NemotronHMamba2Mixer: intermediate_size = expand x hidden, and
   * the heads split it (the SSD scan reshapes d_inner into num_heads x head_dim) */
  if (d_inner != expand * spec->hidden)
    return moe_invalid (r, error, "'mamba_num_heads' x 'mamba_head_dim' = %" G_GUINT64_FORMAT
                        " is not 'expand' x 'hidden_size' = %" G_GUINT64_FORMAT " (the Mamba "
                        "mixer's inner width; hint: check the three fields)", d_inner,
                        expand * spec->hidden);
  if (spec->mamba_heads % spec->mamba_groups != 0)
    return moe_invalid (r, error, "field 'n_groups' (%" G_GUINT64_FORMAT ") does not divide "
                        "'mamba_num_heads' (%" G_GUINT64_FORMAT "; each group of B and C "
                        "serves a whole number of heads)", spec->mamba_groups,
                        spec->mamba_heads);
  const char *pattern = read_string (r, "hybrid_override_pattern", &ok, error);
  if (!ok)
    return FALSE;
  /* newer configs give the kinds as a list instead (NemotronHConfig layers_block_type:
   * "mamba" or "linear_attention", "attention" or "full_attention", "mlp", "moe"; its
   * _pattern_to_list and remap_legacy_layer_types), read here as the same pattern */
  g_autofree char *from_list = NULL;
  JsonArray *types = read_array (r, "layers_block_type", &ok, error);
  if (!ok)
    return FALSE;
  if (pattern == NULL && types != NULL)
    {
      const guint n = json_array_get_length (types);
      from_list = g_malloc0 (n + 1);
      for (guint i = 0; i < n; i++)
        {
          JsonNode *e = json_array_get_element (types, i);
          const char *t = JSON_NODE_HOLDS_VALUE (e)
                          && json_node_get_value_type (e) == G_TYPE_STRING
                          ? json_node_get_string (e) : "";
          from_list[i] = g_str_equal (t, "mamba") || g_str_equal (t, "linear_attention") ? 'M'
                         : g_str_equal (t, "attention") || g_str_equal (t, "full_attention") ? '*'
                         : g_str_equal (t, "mlp") ? '-' : g_str_equal (t, "moe") ? 'E' : '?';
          if (from_list[i] == '?')
            return moe_invalid (r, error, "field 'layers_block_type' has \"%s\" at layer %u; "
                                "the kinds are \"mamba\", \"attention\", \"mlp\" (and \"moe\", "
                                "not modelled)", t, i);
        }
      pattern = from_list;
    }
  if (pattern == NULL)
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_MISSING_FIELD,
                   "%s: missing field 'hybrid_override_pattern' (one character per layer: "
                   "'M' Mamba-2, '*' attention, '-' MLP; or a 'layers_block_type' list)",
                   r->file);
      return FALSE;
    }
  /* counted in characters, not bytes (an 'é' counted twice), each named as written */
  gsize len = 0;
  for (const char *q = pattern; *q != '\0'; q = g_utf8_next_char (q), len++)
    if (*q != 'M' && *q != '*' && *q != '-')
      {
        char ch[8] = { 0 };
        g_unichar_to_utf8 (g_utf8_get_char (q), ch);
        return moe_invalid (r, error, "field 'hybrid_override_pattern' has '%s' at layer %"
                            G_GSIZE_FORMAT "; tandem reads 'M' (Mamba-2), '*' (attention) and "
                            "'-' (MLP)%s", ch, len,
                            *q == 'E' ? " (MoE layers of Nemotron 3 are not modelled)" : "");
      }
  if (len != spec->n_layers)
    return moe_invalid (r, error, "field 'hybrid_override_pattern' has %" G_GSIZE_FORMAT
                        " characters, not 'num_hidden_layers' (%" G_GUINT64_FORMAT "; hint: "
                        "one character per layer)", len, spec->n_layers);
  spec->layer_pattern = g_strdup (pattern);
  spec->norms_per_block = 1;   /* one pre-norm per layer, whatever its kind */
  spec->no_dropout = TRUE;     /* NemotronHConfig hidden_dropout and attention_dropout 0 */
  return set_block (r, spec, MODEL_MLP_GELU, MODEL_NORM_RMS, MODEL_POS_NONE, FALSE, FALSE,
                    error)
         && (spec->mlp_bias = mlp_bias, TRUE);
}

typedef gboolean (*FamilyReader) (const Reader *r, ModelSpec *spec, GError **error);

static const struct {
  const char  *model_type;
  FamilyReader read;
} families[] = {
  { "llama", read_llama },
  { "mistral", read_mistral },   /* sliding_window counted in the attention FLOPs */
  { "qwen2", read_qwen },
  { "gpt2", read_gpt2 },
  { "gpt_neox", read_gpt_neox },
  { "opt", read_opt },
  { "mixtral", read_mixtral },
  { "qwen2_moe", read_qwen_moe },
  { "qwen3", read_qwen },
  { "qwen3_moe", read_qwen_moe },
  { "qwen3_next", read_qwen3_next },
  { "nemotron_h", read_nemotron_h },
  { "deepseek", read_deepseek },   /* DeepSeekMoE: no MLA */
  { "deepseek_v2", read_deepseek },
  { "deepseek_v3", read_deepseek },
  /* Kimi K2 (moonshotai/Kimi-K2-*: architectures DeepseekV3ForCausalLM, its remote
   * DeepseekV3Config with model_type "kimi_k2"): DeepSeek-V3's fields and blocks */
  { "kimi_k2", read_deepseek },
  { "gpt_oss", read_gpt_oss },
  { "llama4", read_llama4_nested },
  { "llama4_text", read_llama4 },
  { "phi3", read_phi3 },
  /* Granite 3.x (GraniteConfig): LlamaForCausalLM's modules; its embedding, residual,
   * attention and logits multipliers are scalars, not parameters */
  { "granite", read_llama },
  { "olmo2", read_olmo2 },
  { "olmo3", read_olmo3 },
  { "gemma", read_gemma },
  { "gemma2", read_gemma2 },
  { "gemma3", read_gemma3_nested },
  { "gemma3_text", read_gemma3 },
  { "falcon", read_falcon },
  { "RefinedWeb", read_falcon },        /* Falcon-40B's first config: new_decoder_architecture */
  { "RefinedWebModel", read_falcon },   /* Falcon-7B's first config */
  { "bloom", read_bloom },
  { "dbrx", read_dbrx },
  { "olmoe", read_olmoe },
  { "starcoder2", read_starcoder2 },
  { "cohere", read_cohere },
  { "cohere2", read_cohere2 },
  { "internlm2", read_internlm2 },
  /* MiniCPM (openbmb's remote MiniCPMConfig): the Llama block; scale_emb, dim_model_base
   * and scale_depth scale the embedding output, the residual branches and the logits
   * (muP): scalars, no parameters. MiniCPM4's sparse_config (InfLLM v2 sparse attention
   * past dense_len tokens) is not modelled: attention is counted dense. */
  { "minicpm", read_llama },
  { "phi", read_phi },
  { "glm4", read_glm4 },
  { "glm4_moe", read_glm4_moe },
  { "qwen2_vl", read_qwen2_vl },       /* text model only: the vision tower is not counted */
  { "qwen2_5_vl", read_qwen2_vl },
};

/* Families people will try, with the reason they are out of scope. */
static const struct {
  const char *model_type;
  const char *why;
} unsupported[] = {
  { "jamba", "hybrid state-space layers and mixture of experts" },
  { "switch_transformers", "mixture of experts" },
};

static gboolean
set_unsupported (const char *file, const char *model_type, GError **error)
{
  const char *why = "not a family tandem models";
  for (gsize i = 0; i < G_N_ELEMENTS (unsupported); i++)
    if (strcmp (unsupported[i].model_type, model_type) == 0)
      why = unsupported[i].why;
  g_set_error (error, MODEL_ERROR, MODEL_ERROR_UNSUPPORTED,
               "%s: model_type '%s' is not supported (%s); supported: "
               "llama, mistral, qwen2, qwen3, phi3, gemma, gemma2, gemma3, gemma3_text, granite, "
               "olmo2, olmo3, gpt2, gpt_neox, opt, mixtral, qwen2_moe, qwen3_moe, qwen3_next, "
               "nemotron_h, deepseek, deepseek_v2, deepseek_v3, kimi_k2, gpt_oss, llama4, llama4_text, falcon "
               "(RefinedWeb, RefinedWebModel), bloom, dbrx, olmoe, starcoder2, cohere, cohere2, "
               "internlm2, minicpm, phi, glm4, glm4_moe, qwen2_vl, qwen2_5_vl", file,
               model_type, why);
  return FALSE;
}

/* ---- entry points --------------------------------------------------------------------- */

/* "preset:NAME" -> NAME; ".../DIR/config.json" -> DIR; ".../x.json" -> x. */
static char *
name_from_source (const char *source)
{
  if (g_str_has_prefix (source, "preset:"))
    return g_strdup (source + strlen ("preset:"));
  g_autofree char *base = g_path_get_basename (source);
  if (strcmp (base, "config.json") == 0)
    {
      g_autofree char *dir = g_path_get_dirname (source);
      g_autofree char *dir_base = g_path_get_basename (dir);
      if (strcmp (dir_base, ".") != 0 && strcmp (dir_base, G_DIR_SEPARATOR_S) != 0)
        return util_text_blank_controls (g_steal_pointer (&dir_base));
    }
  if (g_str_has_suffix (base, ".json"))
    base[strlen (base) - strlen (".json")] = '\0';
  /* a file name with ESC in it printed as the model's name acted on the terminal */
  return util_text_blank_controls (g_steal_pointer (&base));
}

/* Optimal string alignment distance of two short keys, ASCII case folded. */
static guint
key_distance (const char *a, const char *b)
{
  gsize n = strlen (a), m = strlen (b);
  if (n > 63 || m > 63)
    return G_MAXUINT;
  guint d[64][64];
  for (gsize i = 0; i <= n; i++)
    d[i][0] = (guint) i;
  for (gsize j = 0; j <= m; j++)
    d[0][j] = (guint) j;
  for (gsize i = 1; i <= n; i++)
    for (gsize j = 1; j <= m; j++)
      {
        guint cost = g_ascii_tolower (a[i - 1]) != g_ascii_tolower (b[j - 1]);
        guint v = MIN (MIN (d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && g_ascii_tolower (a[i - 1]) == g_ascii_tolower (b[j - 2])
            && g_ascii_tolower (a[i - 2]) == g_ascii_tolower (b[j - 1]))
          v = MIN (v, d[i - 2][j - 2] + 1);
        d[i][j] = v;
      }
  return d[n][m];
}

/* Unknown fields are ignored (real configs carry dozens), but one that is a slip of a
 * field the family reads and the file lacks ("num_key_value_head" for
 * "num_key_value_heads") silently gave that field's default (here: 32 KV heads instead of
 * 8). NULL, or the sentence that names each such pair. */
static char *
slipped_fields (const Reader *r)
{
  GString *out = NULL;
  g_autoptr (GList) members = json_object_get_members (r->obj);
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *key = l->data;
      if (key[0] == '_' || g_hash_table_contains (r->asked, key) || strlen (key) < 4)
        continue;
      GHashTableIter it;
      gpointer k;
      g_hash_table_iter_init (&it, r->asked);
      while (g_hash_table_iter_next (&it, &k, NULL))
        {
          const char *want = k;
          if (json_object_has_member (r->obj, want) || strlen (want) < 4)
            continue;
          /* one slip per 4 characters, at most 2 */
          guint limit = MIN (2u, (guint) strlen (want) / 4);
          if (key_distance (key, want) > limit)
            continue;
          if (out == NULL)
            out = g_string_new (NULL);
          else
            g_string_append (out, "; ");
          g_string_append_printf (out, "%s: field '%s' is not one tandem reads (did you mean "
                                  "'%s'? without it, its default applies)", r->file, key,
                                  want);
          break;
        }
    }
  return out != NULL ? g_string_free (out, FALSE) : NULL;
}

ModelSpec *
model_spec_new_from_data (const char *json_text, gssize length, const char *source,
                          GError **error)
{
  g_return_val_if_fail (json_text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (source == NULL)
    source = "<data>";
  if (length < 0)
    length = (gssize) strlen (json_text);

  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) local = NULL;
  if (!util_json_check_depth (json_text, length, 0, source, &local))
    {
      g_set_error_literal (error, MODEL_ERROR, MODEL_ERROR_PARSE, local->message);
      return NULL;
    }
  if (!json_parser_load_from_data (parser, json_text, length, &local))
    {
      /* json-glib says "<data>:LINE:COL: Parse error: ..."; keep LINE:COL, name the file. */
      const char *msg = local->message;
      if (g_str_has_prefix (msg, "<data>:"))
        msg += strlen ("<data>:");
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARSE, "%s:%s", source, msg);
      return NULL;
    }
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_PARSE,
                   "%s: the top level is not a JSON object", source);
      return NULL;
    }

  g_autoptr (GHashTable) asked = g_hash_table_new (g_str_hash, g_str_equal);
  Reader r = { json_node_get_object (root), source, asked };
  gboolean ok;
  const char *model_type = read_string (&r, "model_type", &ok, error);
  if (!ok)
    return NULL;
  if (model_type == NULL)
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_MISSING_FIELD,
                   "%s: missing field 'model_type'", source);
      return NULL;
    }

  FamilyReader read = NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (families); i++)
    if (strcmp (families[i].model_type, model_type) == 0)
      read = families[i].read;
  if (read == NULL)
    {
      set_unsupported (source, model_type, error);
      return NULL;
    }

  g_autoptr (ModelSpec) spec = g_new0 (ModelSpec, 1);
  spec->ref_count = 1;
  spec->model_type = g_strdup (model_type);
  if (!read (&r, spec, error))
    return NULL;
  /* routed experts that no layer has (DeepSeek's first_k_dense_replace = num_hidden_layers,
   * and no MTP module, whose block would be the MoE one): a dense model. It was kept as a
   * MoE of "0 MoE layers" whose --ep was accepted, changed nothing and quoted the MoE
   * accuracy line */
  if (spec->n_experts > 0 && model_spec_n_moe_layers (spec) == 0 && spec->mtp_layers == 0)
    {
      g_autofree char *why = g_strdup_printf ("%s: no layer has routed experts (%" G_GUINT64_FORMAT
                                              " of %" G_GUINT64_FORMAT " layers dense): read as "
                                              "a dense model", source, spec->n_layers,
                                              spec->n_layers);
      spec->n_experts = spec->moe_top_k = spec->moe_ffn = 0;
      spec->n_shared_experts = spec->shared_expert_ffn = 0;
      spec->shared_expert_gate = FALSE;
      spec->first_dense_layers = 0;
      spec->moe_layer_step = 0;
      spec->router_norm_topk = spec->router_bias = FALSE;
      char *both = spec->config_warning != NULL
                     ? g_strdup_printf ("%s; %s", spec->config_warning, why)
                     : g_steal_pointer (&why);
      g_free (spec->config_warning);
      spec->config_warning = both;
    }
  spec->name = name_from_source (source);
  spec->source = g_strdup (source);
  spec->config_json = g_strndup (json_text, (gsize) length);
  /* the top level's slips after any a nested reader named (read_llama4_nested) */
  g_autofree char *top = slipped_fields (&r);
  if (top != NULL)
    {
      char *both = spec->config_warning != NULL
                     ? g_strdup_printf ("%s; %s", spec->config_warning, top)
                     : g_steal_pointer (&top);
      g_free (spec->config_warning);
      spec->config_warning = both;
    }
  return g_steal_pointer (&spec);
}

ModelSpec *
model_spec_load_file (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr (GError) local = NULL;
  if (!util_input_read_file (path, UTIL_INPUT_MAX_DOC_BYTES, &text, &len, &local))
    {
      g_set_error (error, MODEL_ERROR, MODEL_ERROR_NOT_FOUND,
                   "%s: cannot read model config: %s", path, local->message);
      return NULL;
    }
  return model_spec_new_from_data (text, (gssize) len, path, error);
}

/* ---- custom specs --------------------------------------------------------------------- */

/* The config.json a custom spec would have been loaded from: llama field names for
 * SwiGLU, gpt2 field names for GeLU (Megatron GPT: LayerNorm, learned positions, biases).
 * Loading it back gives the same spec. */
static char *
custom_config_json (const ModelSpec *s)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "_tandem_source");
  json_builder_add_string_value (b, "model_spec_new_custom");
#define ADD_INT(key, v) G_STMT_START { json_builder_set_member_name (b, key); \
    json_builder_add_int_value (b, (gint64) (v)); } G_STMT_END
  if (s->mlp == MODEL_MLP_SWIGLU)
    {
      json_builder_set_member_name (b, "model_type");
      json_builder_add_string_value (b, "llama");
      json_builder_set_member_name (b, "hidden_act");
      json_builder_add_string_value (b, "silu");
      ADD_INT ("hidden_size", s->hidden);
      ADD_INT ("intermediate_size", s->ffn_hidden);
      ADD_INT ("num_hidden_layers", s->n_layers);
      ADD_INT ("num_attention_heads", s->n_heads);
      ADD_INT ("num_key_value_heads", s->n_kv_heads);
      ADD_INT ("vocab_size", s->vocab);
      ADD_INT ("max_position_embeddings", s->max_positions);
    }
  else
    {
      json_builder_set_member_name (b, "model_type");
      json_builder_add_string_value (b, "gpt2");
      json_builder_set_member_name (b, "activation_function");
      json_builder_add_string_value (b, "gelu");
      ADD_INT ("n_embd", s->hidden);
      ADD_INT ("n_inner", s->ffn_hidden);
      ADD_INT ("n_layer", s->n_layers);
      ADD_INT ("n_head", s->n_heads);
      if (s->n_kv_heads != s->n_heads)
        ADD_INT ("num_key_value_heads", s->n_kv_heads);
      ADD_INT ("vocab_size", s->vocab);
      ADD_INT ("n_positions", s->max_positions);
    }
#undef ADD_INT
  json_builder_set_member_name (b, "tie_word_embeddings");
  json_builder_add_boolean_value (b, s->tied_embeddings);
  json_builder_end_object (b);

  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}

ModelSpec *
model_spec_new_custom (const char *name, ModelMlpKind mlp, guint64 hidden,
                       guint64 ffn_hidden, guint64 n_layers, guint64 n_heads,
                       guint64 n_kv_heads, guint64 vocab, guint64 seq,
                       gboolean tied_embeddings)
{
  g_return_val_if_fail (hidden > 0 && hidden <= MODEL_MAX_HIDDEN, NULL);
  g_return_val_if_fail (n_layers > 0 && n_heads > 0 && vocab > 0 && seq > 0, NULL);
  g_return_val_if_fail (hidden % n_heads == 0, NULL);
  if (ffn_hidden == 0)
    ffn_hidden = 4 * hidden;
  if (n_kv_heads == 0)
    n_kv_heads = n_heads;
  /* callers check with model_sizes_problem first (published.c); this is the contract */
  g_return_val_if_fail (model_sizes_problem (hidden, ffn_hidden, n_layers, n_heads, n_kv_heads,
                                             hidden / n_heads, vocab, seq) == NULL, NULL);

  ModelSpec *s = g_new0 (ModelSpec, 1);
  s->ref_count = 1;
  s->name = g_strdup (name != NULL ? name : "custom");
  s->source = g_strdup ("custom");
  s->hidden = hidden;
  s->ffn_hidden = ffn_hidden;
  s->n_layers = n_layers;
  s->n_heads = n_heads;
  s->n_kv_heads = n_kv_heads;
  s->head_dim = hidden / n_heads;
  s->vocab = vocab;
  s->max_positions = seq;
  s->mlp = mlp;
  s->tied_embeddings = tied_embeddings;
  if (mlp == MODEL_MLP_SWIGLU)
    {
      s->model_type = g_strdup ("llama");
      s->norm = MODEL_NORM_RMS;
      s->pos = MODEL_POS_ROTARY;
    }
  else
    {
      s->model_type = g_strdup ("gpt2");
      s->norm = MODEL_NORM_LAYER;
      s->pos = MODEL_POS_LEARNED;
      s->attn_bias = TRUE;
      s->mlp_bias = TRUE;
    }
  s->config_json = custom_config_json (s);
  return s;
}
