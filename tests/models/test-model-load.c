/* tests/models/test-model-load.c - config.json loading, presets, parameter counts.
 *
 * Every entry of tests/data/models/ is loaded once (json-glib conformance style); its
 * expected outcome is in `cases` below, and a data file without a row there fails, so a
 * new file cannot go untested. Parameter totals are the published counts of the models
 * the files come from; each is derived by hand in a comment. */
#include "models/model.h"

#include <json-glib/json-glib.h>
#include <string.h>

typedef struct {
  const char *file;     /* entry of tests/data/models/ */
  int         code;     /* expected ModelError, or -1 for success */
  const char *field;    /* what the message must quote ('field' or model_type) */
  guint64     total;    /* expected parameter count on success */
} LoadCase;

static const LoadCase cases[] = {
  /* GPT-2 small, V 50257, h 768, L 12, ffn 4h (n_inner null), 1024 positions, tied:
   * wte 50257*768 = 38,597,376; wpe 1024*768 = 786,432;
   * layer = attn 4*768^2 + 4*768 = 2,362,368 + MLP 2*768*3072 + 3072 + 768 = 4,722,432
   *       + norms 2*2*768 = 3,072 -> 7,087,872, x12 = 85,054,464; ln_f 1,536;
   * total 124,439,808 (the published GPT-2 small count). */
  { "gpt2-small.json", -1, NULL, 124439808 },
  /* OPT-125m: as GPT-2 small but V 50272, positions 2048 + 2 (OPT offset), relu MLP:
   * 50272*768 = 38,608,896; 2050*768 = 1,574,400; 12 * 7,087,872 = 85,054,464;
   * final LayerNorm 1,536; total 125,239,296. */
  { "opt-125m.json", -1, NULL, 125239296 },
  /* Pythia-70m (gpt_neox), h 512, L 6, ffn 2048, V 50304, untied, rotary:
   * embed_in + embed_out 2*50304*512 = 51,511,296;
   * layer = attn 4*512^2 + 4*512 = 1,050,624 + MLP 2*512*2048 + 2048 + 512 = 2,099,712
   *       + norms 2,048 -> 3,152,384, x6 = 18,914,304; final 1,024; total 70,426,624. */
  { "pythia-70m.json", -1, NULL, 70426624 },
  /* Mistral 7B: h 4096, L 32, 32 heads, 8 KV heads (d 128), ffn 14336, V 32000:
   * layer = 2*4096^2 + 2*4096*1024 + 3*4096*14336 + 2*4096 = 218,112,000, x32 =
   * 6,979,584,000; embeddings 2*32000*4096 = 262,144,000; final 4096; 7,241,732,096. */
  { "mistral-7b.json", -1, NULL, 7241732096 },
  /* Mistral-NeMo 12B, explicit head_dim 128 with h 5120, 32 heads (q = 4096), 8 KV:
   * layer = 5120*4096 (q) + 2*5120*1024 (k, v) + 4096*5120 (o) + 3*5120*14336
   *       + 2*5120 = 272,640,000, x40 = 10,905,600,000; embeddings 2*131072*5120 =
   * 1,342,177,280; final 5120; total 12,247,782,400. */
  { "mistral-nemo-12b.json", -1, NULL, 12247782400 },
  /* Llama 2 7B in a directory: layer = 4*4096^2 + 3*4096*11008 + 2*4096 = 202,383,360,
   * x32 = 6,476,267,520; embeddings 2*32000*4096 = 262,144,000; final 4096;
   * total 6,738,415,616. */
  { "llama2-7b", -1, NULL, 6738415616 },
  { "malformed.json", MODEL_ERROR_PARSE, ":4:28:", 0 }, /* the missing comma, line:col */
  { "not-object.json", MODEL_ERROR_PARSE, "object", 0 },
  { "llama3-bad.json", MODEL_ERROR_MISSING_FIELD, "'num_hidden_layers'", 0 },
  { "no-model-type.json", MODEL_ERROR_MISSING_FIELD, "'model_type'", 0 },
  { "gpt2-no-heads.json", MODEL_ERROR_MISSING_FIELD, "'n_head'", 0 },
  { "wrong-type.json", MODEL_ERROR_INVALID_FIELD, "'hidden_size'", 0 },
  { "wrong-bool.json", MODEL_ERROR_INVALID_FIELD, "'tie_word_embeddings'", 0 },
  { "float-size.json", MODEL_ERROR_INVALID_FIELD, "'vocab_size'", 0 },
  { "negative-size.json", MODEL_ERROR_INVALID_FIELD, "'num_hidden_layers'", 0 },
  { "zero-ffn.json", MODEL_ERROR_INVALID_FIELD, "'intermediate_size'", 0 },
  { "kv-not-dividing.json", MODEL_ERROR_INVALID_FIELD, "'num_key_value_heads'", 0 },
  { "kv-exceeds-heads.json", MODEL_ERROR_INVALID_FIELD, "'num_key_value_heads'", 0 },
  { "hidden-not-divisible.json", MODEL_ERROR_INVALID_FIELD, "'head_dim'", 0 },
  /* Mixtral 8x7B: h 4096, L 32, 32 heads / 8 KV (d 128), 8 experts of ffn 14336, V 32000:
   * attention 2*4096^2 + 2*4096*1024 = 41,943,040; expert 3*4096*14336 = 176,160,768;
   * router 4096*8 = 32,768; norms 8,192; layer 41,943,040 + 8*176,160,768 + 32,768
   * + 8,192 = 1,451,270,144, x32 = 46,440,644,608; embeddings 2*32000*4096 =
   * 262,144,000; final 4,096; total 46,702,792,704 (published: 46.7B). */
  { "mixtral.json", -1, NULL, 46702792704 },
  { "mixtral-topk-exceeds.json", MODEL_ERROR_INVALID_FIELD, "'num_experts_per_tok' (9)", 0 },
  { "mixtral-no-experts.json", MODEL_ERROR_MISSING_FIELD, "'num_local_experts'", 0 },
  { "mixtral-experts-cap.json", MODEL_ERROR_INVALID_FIELD, "'num_local_experts'", 0 },
  { "mixtral-experts-width.json", MODEL_ERROR_INVALID_FIELD, "experts' width", 0 },
  { "jamba.json", MODEL_ERROR_UNSUPPORTED, "'jamba'", 0 },
  { "deepseek-v3.json", MODEL_ERROR_UNSUPPORTED, "'deepseek_v3'", 0 },
  { "gelu-llama.json", MODEL_ERROR_UNSUPPORTED, "'hidden_act'", 0 },
  { "opt-350m.json", MODEL_ERROR_UNSUPPORTED, "'word_embed_proj_dim'", 0 },
};

static const LoadCase *
find_case (const char *file)
{
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    if (strcmp (cases[i].file, file) == 0)
      return &cases[i];
  return NULL;
}

static char *
data_path (const char *file)
{
  return g_test_build_filename (G_TEST_DIST, "data", "models", file, NULL);
}

/* One data file: model_spec_lookup either succeeds with the published parameter count,
 * or fails with the expected code and a message naming the file and the field. */
static void
test_load_file (gconstpointer data)
{
  const char *file = data;
  const LoadCase *c = find_case (file);
  if (c == NULL)
    {
      g_test_message ("tests/data/models/%s has no row in `cases`", file);
      g_test_fail ();
      return;
    }
  g_autofree char *path = data_path (file);
  g_autoptr (GError) error = NULL;
  g_autoptr (ModelSpec) spec = model_spec_lookup (path, &error);

  if (c->code < 0)
    {
      g_assert_no_error (error);
      g_assert_nonnull (spec);
      ModelParams p;
      model_spec_params (spec, &p);
      g_assert_cmpuint (p.total, ==, c->total);
      g_assert_cmpuint (p.total, ==, p.embedding + p.non_embedding);
      /* name is the file name without .json, or the directory's name */
      g_autofree char *want = g_strdup (file);
      if (g_str_has_suffix (want, ".json"))
        want[strlen (want) - 5] = '\0';
      g_assert_cmpstr (spec->name, ==, want);
      g_assert_nonnull (strstr (spec->config_json, "model_type"));
      g_assert_cmpint (spec->ref_count, ==, 1);
      return;
    }
  g_assert_null (spec);
  g_assert_error (error, MODEL_ERROR, c->code);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, file));
  g_assert_nonnull (strstr (error->message, c->field));
}

/* Every row of `cases` has its file (the reverse of the check above). */
static void
test_cases_have_files (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = data_path (cases[i].file);
      g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
    }
}

/* Every shipped preset loads, carries its source, and has the name it is listed under. */
static void
test_presets_load (void)
{
  g_auto (GStrv) names = model_preset_names ();
  g_assert_nonnull (names);
  g_assert_cmpuint (g_strv_length (names), >=, 30);
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (ModelSpec) spec = model_spec_lookup (names[i], &error);
      g_assert_no_error (error);
      g_assert_cmpstr (spec->name, ==, names[i]);
      g_autofree char *source = g_strconcat ("preset:", names[i], NULL);
      g_assert_cmpstr (spec->source, ==, source);
      if (i > 0)
        g_assert_cmpint (strcmp (names[i - 1], names[i]), <, 0);

      /* _tandem_source is a non-empty string in every preset */
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_assert_true (json_parser_load_from_data (parser, spec->config_json, -1, NULL));
      JsonObject *obj = json_node_get_object (json_parser_get_root (parser));
      const char *why = json_object_get_string_member_with_default (obj, "_tandem_source", "");
      g_assert_cmpuint (strlen (why), >, 20);
    }
}

/* Aliases resolve to the preset; unknown names list the presets. */
static void
test_presets_lookup (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ModelSpec) spec = model_spec_lookup ("llama3.1-405b", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (spec->name, ==, "llama3-405b");
  g_assert_cmpuint (spec->n_layers, ==, 126);

  g_autoptr (ModelSpec) none = model_spec_lookup ("llama9-1t", &error);
  g_assert_null (none);
  g_assert_error (error, MODEL_ERROR, MODEL_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "llama9-1t"));
  g_assert_nonnull (strstr (error->message, "llama3-8b"));
  g_assert_nonnull (strstr (error->message, "megatron-gpt-175b"));
  g_clear_error (&error);

  g_assert_null (model_spec_load_preset ("../llama3-8b", &error));
  g_assert_error (error, MODEL_ERROR, MODEL_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* a directory without config.json */
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "data", NULL);
  g_assert_null (model_spec_lookup (dir, &error));
  g_assert_error (error, MODEL_ERROR, MODEL_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "config.json"));
}

/* The Llama 3.1 presets read as their HF configs say. */
static void
test_presets_llama3_fields (void)
{
  g_autoptr (ModelSpec) s = model_spec_load_preset ("llama3-8b", NULL);
  g_assert_nonnull (s);
  g_assert_cmpuint (s->hidden, ==, 4096);
  g_assert_cmpuint (s->ffn_hidden, ==, 14336);
  g_assert_cmpuint (s->n_layers, ==, 32);
  g_assert_cmpuint (s->n_heads, ==, 32);
  g_assert_cmpuint (s->n_kv_heads, ==, 8);
  g_assert_cmpuint (s->head_dim, ==, 128);     /* 4096 / 32 */
  g_assert_cmpuint (s->vocab, ==, 128256);
  g_assert_cmpuint (s->max_positions, ==, 131072);
  g_assert_cmpint (s->mlp, ==, MODEL_MLP_SWIGLU);
  g_assert_cmpint (s->norm, ==, MODEL_NORM_RMS);
  g_assert_cmpint (s->pos, ==, MODEL_POS_ROTARY);
  g_assert_false (s->tied_embeddings);
  g_assert_false (s->attn_bias);
  g_assert_false (s->mlp_bias);

  g_autoptr (ModelSpec) g = model_spec_load_preset ("gpt3-175b", NULL);
  g_assert_cmpuint (g->ffn_hidden, ==, 49152);  /* n_inner null -> 4 * 12288 */
  g_assert_cmpint (g->mlp, ==, MODEL_MLP_GELU);
  g_assert_cmpint (g->norm, ==, MODEL_NORM_LAYER);
  g_assert_cmpint (g->pos, ==, MODEL_POS_LEARNED);
  g_assert_true (g->tied_embeddings);
  g_assert_true (g->attn_bias && g->mlp_bias);
}

/* Llama 3.1, exactly (published counts on the HF model cards):
 * 8B:   layer = q 4096^2 16,777,216 + k,v 2*4096*1024 8,388,608 + o 16,777,216
 *       + MLP 3*4096*14336 176,160,768 + norms 8,192 = 218,112,000; x32 = 6,979,584,000;
 *       embeddings 2*128256*4096 = 1,050,673,152; final 4,096 -> 8,030,261,248.
 * 70B:  layer = 8192^2*2 + 2*8192*1024 + 3*8192*28672 + 16,384 = 855,654,400; x80 =
 *       68,452,352,000; embeddings 2*128256*8192 = 2,101,346,304; final 8,192
 *       -> 70,553,706,496.
 * 405B: layer = 16384^2*2 + 2*16384*1024 + 3*16384*53248 + 32,768 = 3,187,703,808;
 *       x126 = 401,650,679,808; embeddings 2*128256*16384 = 4,202,692,608; final 16,384
 *       -> 405,853,388,800. */
static void
test_params_llama3 (void)
{
  static const struct { const char *name; guint64 total, per_layer; } want[] = {
    { "llama3-8b", 8030261248, 218112000 },
    { "llama3-70b", 70553706496, 855654400 },
    { "llama3-405b", 405853388800, 3187703808 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (want); i++)
    {
      g_autoptr (ModelSpec) s = model_spec_load_preset (want[i].name, NULL);
      ModelParams p;
      model_spec_params (s, &p);
      g_assert_cmpuint (p.total, ==, want[i].total);
      g_assert_cmpuint (p.per_layer, ==, want[i].per_layer);
      g_assert_cmpuint (p.output_head, ==, s->vocab * s->hidden);
      g_assert_cmpuint (p.input_embedding, ==, s->vocab * s->hidden);
    }
}

/* GPT-3 175B (h 12288, L 96, V 50257, 2048 positions, tied, biases, LayerNorm):
 * layer = 12 h^2 + 13 h = 1,811,939,328 + 159,744 = 1,812,099,072 (Narayanan et al.'s
 * 12h^2 + 13h); x96 = 173,961,510,912; token table 50257*12288 = 617,558,016; positions
 * 2048*12288 = 25,165,824; final LayerNorm 24,576; total 174,604,259,328 = "174.6B"
 * (Narayanan et al. SC'21 Table 2). */
static void
test_params_gpt3 (void)
{
  g_autoptr (ModelSpec) s = model_spec_load_preset ("gpt3-175b", NULL);
  ModelParams p;
  model_spec_params (s, &p);
  g_assert_cmpuint (p.per_layer, ==, 1812099072);
  g_assert_cmpuint (p.total, ==, 174604259328);
  g_assert_cmpuint (p.output_head, ==, 0);
  g_assert_cmpuint (p.embedding, ==, 617558016 + 25165824);
}

/* Other presets against the sizes their sources state (to the printed precision):
 * Llama 2 7B/13B/70B 6,738,415,616 / 13,015,864,320 / 68,976,648,192 (HF model cards);
 * Narayanan et al. SC'21 Table 1 (via the csv) prints 0.1B precision: 3.6 (3,562,168,320)
 * .. 1008.0 (1,008,038,758,400) agree to +-0.05B; its "1.7" is 1,652,230,656 = 12*24*2304^2
 * + 13*24*2304 + (51200 + 2048)*2304 + 2*2304 (tied, as the paper's P formula), i.e. 1.65;
 * Megatron README H100 models (untied): 462B = 112*(12*18432^2 + 13*18432) +
 * 2*131072*18432 + 4096*18432 + 2*18432 = 461.5e9. */
static void
test_params_presets (void)
{
  static const struct { const char *name; double billions, tol; } want[] = {
    { "llama2-7b", 6.738415616, 1e-9 },
    { "llama2-13b", 13.015864320, 1e-9 },
    { "llama2-70b", 68.976648192, 1e-9 },
    { "megatron-gpt-1.7b", 1.7, 0.05 },
    { "megatron-gpt-3.6b", 3.6, 0.05 },
    { "megatron-gpt-7.5b", 7.5, 0.05 },
    { "megatron-gpt-18b", 18.4, 0.05 },
    { "megatron-gpt-39b", 39.1, 0.05 },
    { "megatron-gpt-76b", 76.1, 0.05 },
    { "megatron-gpt-145b", 145.6, 0.05 },
    { "megatron-gpt-310b", 310.1, 0.05 },
    { "megatron-gpt-530b", 529.6, 0.05 },
    { "megatron-gpt-1t", 1008.0, 0.05 },
    { "mcore-gpt-7.1b", 7.1, 0.05 },
    { "mcore-gpt-462b", 461.5, 0.05 },
    { "gpt-neox-20b", 20.554567680, 1e-9 },       /* HF model card: 20,554,567,680 */
  };
  for (gsize i = 0; i < G_N_ELEMENTS (want); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (ModelSpec) s = model_spec_load_preset (want[i].name, &error);
      g_assert_no_error (error);
      ModelParams p;
      model_spec_params (s, &p);
      g_test_message ("%s: %" G_GUINT64_FORMAT, want[i].name, p.total);
      g_assert_cmpfloat_with_epsilon ((double) p.total / 1e9, want[i].billions, want[i].tol);
    }
  /* tiny-llama exactly: h 256, 8 heads (d 32), 4 KV heads, ffn 688, V 2048, L 4:
   * layer = 256*256 (q) + 2*256*128 (k, v) + 256*256 (o) + 3*256*688 + 2*256
   *       = 65,536 + 65,536 + 65,536 + 528,384 + 512 = 725,504; x4 = 2,902,016;
   * embeddings 2*2048*256 = 1,048,576; final 256; total 3,950,848. */
  g_autoptr (ModelSpec) tiny = model_spec_load_preset ("tiny-llama", NULL);
  ModelParams p;
  model_spec_params (tiny, &p);
  g_assert_cmpuint (p.total, ==, 3950848);
}

/* Mixtral against Mistral AI's published totals (the _tandem_source of each preset):
 * 8x7B "46.7B total parameters, 12.9B per token"; 8x22B "39B active out of 141B".
 * 8x7B active: the total less 6 of 8 experts in each of 32 layers:
 *   46,702,792,704 - 32*6*176,160,768 = 12,879,925,248 (12.9B).
 * 8x22B: h 6144, L 56, 48 heads / 8 KV (d 128), ffn 16384, V 32768:
 *   attention 2*6144^2 + 2*6144*1024 = 88,080,384; expert 3*6144*16384 = 301,989,888;
 *   router 6144*8 = 49,152; norms 12,288; layer 88,080,384 + 8*301,989,888 + 49,152
 *   + 12,288 = 2,504,060,928, x56 = 140,227,411,968; embeddings 2*32768*6144 =
 *   402,653,184; final 6,144; total 140,630,071,296 (141B);
 *   active 140,630,071,296 - 56*6*301,989,888 = 39,161,468,928 (39B). */
static void
test_params_mixtral (void)
{
  static const struct {
    const char *name;
    guint64 total, active, expert, per_moe_layer;
    double published_total, published_active, tol;  /* billions, +- half the last
                                                      * printed digit */
  } want[] = {
    { "mixtral-8x7b", 46702792704, 12879925248, 176160768, 1451270144, 46.7, 12.9, 0.05 },
    { "mixtral-8x22b", 140630071296, 39161468928, 301989888, 2504060928, 141.0, 39.0, 0.5 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (want); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (ModelSpec) s = model_spec_load_preset (want[i].name, &error);
      g_assert_no_error (error);
      g_assert_true (model_spec_is_moe (s));
      g_assert_false (model_spec_is_mla (s));
      g_assert_cmpuint (s->n_experts, ==, 8);
      g_assert_cmpuint (s->moe_top_k, ==, 2);
      g_assert_cmpuint (s->moe_ffn, ==, s->ffn_hidden);
      g_assert_cmpuint (s->shared_expert_ffn, ==, 0);
      g_assert_cmpuint (model_spec_n_moe_layers (s), ==, s->n_layers);
      for (guint64 l = 0; l < s->n_layers; l++)
        g_assert_true (model_spec_layer_is_moe (s, l));
      g_assert_false (model_spec_layer_is_moe (s, s->n_layers));
      ModelParams p;
      model_spec_params (s, &p);
      g_assert_cmpuint (p.total, ==, want[i].total);
      g_assert_cmpuint (p.active, ==, want[i].active);
      g_assert_cmpuint (p.expert, ==, want[i].expert);
      g_assert_cmpuint (p.per_moe_layer, ==, want[i].per_moe_layer);
      g_assert_cmpuint (p.router_per_layer, ==, s->hidden * 8);
      g_assert_cmpuint (p.n_moe_layers, ==, s->n_layers);
      g_assert_cmpuint (p.n_dense_layers, ==, 0);
      g_assert_cmpuint (p.per_layer, ==, 0);
      g_assert_cmpuint (p.mtp, ==, 0);
      g_assert_cmpuint (p.experts, ==, s->n_layers * 8 * want[i].expert);
      g_assert_cmpfloat_with_epsilon ((double) p.total / 1e9, want[i].published_total,
                                      want[i].tol);
      g_assert_cmpfloat_with_epsilon ((double) p.active / 1e9, want[i].published_active,
                                      want[i].tol);
    }

  /* a dense model: nothing is MoE, active == total */
  g_autoptr (ModelSpec) dense = model_spec_load_preset ("llama3-8b", NULL);
  ModelParams p;
  model_spec_params (dense, &p);
  g_assert_false (model_spec_is_moe (dense));
  g_assert_false (model_spec_layer_is_moe (dense, 0));
  g_assert_cmpuint (model_spec_n_moe_layers (dense), ==, 0);
  g_assert_cmpuint (p.active, ==, p.total);
  g_assert_cmpuint (p.n_dense_layers, ==, 32);
  g_assert_cmpuint (p.experts + p.per_moe_layer + p.router_per_layer, ==, 0);
}

/* Layer patterns: first_dense_layers leading dense layers, then every step-th MoE
 * (fields set by hand on a copy of the Mixtral spec; the loaders of the families that use
 * them set the same fields). L 8, first_dense 2, step 2: layers 2..7 are j = 0..5, MoE at
 * j = 1, 3, 5, i.e. layers 3, 5, 7: 3 = (8 - 2) / 2. */
static void
test_moe_layer_pattern (void)
{
  g_autoptr (ModelSpec) s = model_spec_load_preset ("mixtral-8x7b", NULL);
  ModelSpec c = *s;
  c.n_layers = 8;
  c.first_dense_layers = 2;
  c.moe_layer_step = 2;
  static const gboolean want[8] = { FALSE, FALSE, FALSE, TRUE, FALSE, TRUE, FALSE, TRUE };
  for (guint64 l = 0; l < 8; l++)
    g_assert_cmpint (model_spec_layer_is_moe (&c, l), ==, want[l]);
  g_assert_cmpuint (model_spec_n_moe_layers (&c), ==, 3);
  ModelParams p;
  model_spec_params (&c, &p);
  g_assert_cmpuint (p.n_dense_layers, ==, 5);
  /* dense layers carry the dense MLP of ffn_hidden (14336): the Mistral 7B layer */
  g_assert_cmpuint (p.per_layer, ==, 218112000);
  g_assert_cmpuint (p.total, ==, 5 * 218112000ull + 3 * 1451270144ull + 4096 + 262144000);
  g_assert_cmpuint (p.active, ==, p.total - 3 * 6 * 176160768ull);
}

/* A custom spec equals the preset with the same numbers, and its config_json loads back
 * into the same spec. */
static void
test_custom (void)
{
  g_autoptr (ModelSpec) preset = model_spec_load_preset ("megatron-gpt-175b", NULL);
  g_autoptr (ModelSpec) custom = model_spec_new_custom ("gpt-175b", MODEL_MLP_GELU, 12288, 0,
                                                        96, 96, 0, 51200, 2048, TRUE);
  ModelParams a, b;
  model_spec_params (preset, &a);
  model_spec_params (custom, &b);
  g_assert_cmpuint (a.total, ==, b.total);
  g_assert_cmpuint (custom->ffn_hidden, ==, 4 * 12288);
  g_assert_cmpuint (custom->n_kv_heads, ==, 96);

  g_autoptr (GError) error = NULL;
  g_autoptr (ModelSpec) again = model_spec_new_from_data (custom->config_json, -1,
                                                          "custom.json", &error);
  g_assert_no_error (error);
  model_spec_params (again, &a);
  g_assert_cmpuint (a.total, ==, b.total);

  g_autoptr (ModelSpec) l3 = model_spec_load_preset ("llama3-8b", NULL);
  g_autoptr (ModelSpec) l3c = model_spec_new_custom ("l3", MODEL_MLP_SWIGLU, 4096, 14336, 32,
                                                     32, 8, 128256, 8192, FALSE);
  model_spec_params (l3, &a);
  model_spec_params (l3c, &b);
  g_assert_cmpuint (b.total, ==, 8030261248);
  g_autoptr (ModelSpec) l3again = model_spec_new_from_data (l3c->config_json, -1, "x.json",
                                                            &error);
  g_assert_no_error (error);
  g_assert_cmpuint (l3again->n_kv_heads, ==, 8);
  g_assert_cmpuint (l3again->max_positions, ==, 8192);
}

static void
test_refcount (void)
{
  ModelSpec *s = model_spec_load_preset ("tiny-llama", NULL);
  g_assert_true (model_spec_ref (s) == s);
  g_assert_cmpint (s->ref_count, ==, 2);
  model_spec_unref (s);
  model_spec_unref (s);
  model_spec_unref (NULL);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_autofree char *dir_path = data_path (NULL);
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  for (const char *e; dir != NULL && (e = g_dir_read_name (dir)) != NULL;)
    g_ptr_array_add (files, g_strdup (e));
  g_ptr_array_sort (files, compare_names);
  for (guint i = 0; i < files->len; i++)
    {
      const char *f = g_ptr_array_index (files, i);
      g_autofree char *test = g_strconcat ("/models/load/data/", f, NULL);
      g_test_add_data_func_full (test, g_strdup (f), test_load_file, g_free);
    }
  g_test_add_func ("/models/load/cases-have-files", test_cases_have_files);
  g_test_add_func ("/models/presets/all-load", test_presets_load);
  g_test_add_func ("/models/presets/lookup", test_presets_lookup);
  g_test_add_func ("/models/presets/llama3-fields", test_presets_llama3_fields);
  g_test_add_func ("/models/params/llama3", test_params_llama3);
  g_test_add_func ("/models/params/gpt3-175b", test_params_gpt3);
  g_test_add_func ("/models/params/presets", test_params_presets);
  g_test_add_func ("/models/params/mixtral", test_params_mixtral);
  g_test_add_func ("/models/params/moe-layer-pattern", test_moe_layer_pattern);
  g_test_add_func ("/models/spec/custom", test_custom);
  g_test_add_func ("/models/spec/refcount", test_refcount);
  return g_test_run ();
}
