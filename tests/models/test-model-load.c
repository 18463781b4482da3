/* tests/models/test-model-load.c - config.json loading, presets, parameter counts.
 *
 * Every entry of tests/data/models/ is loaded once (json-glib conformance style); its
 * expected outcome is in `cases` below, and a data file without a row there fails, so a
 * new file cannot go untested. Parameter totals are the published counts of the models
 * the files come from; each is derived by hand in a comment. */
#include "models/model.h"

#include <json-glib/json-glib.h>
#include <math.h>
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
  /* Nemotron-H 8B: test_params_nemotron_h */
  { "nemotron-h-8b.json", -1, NULL, 8100852736 },
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
  /* the missing field's near miss in the file is named: "num_hidden_layerz" is one edit
   * from "num_hidden_layers" (17 characters: up to 2 allowed, one per 4) */
  { "llama3-slip.json", MODEL_ERROR_MISSING_FIELD,
    "missing field 'num_hidden_layers' (hint: the file has 'num_hidden_layerz'; did you mean "
    "'num_hidden_layers'?)", 0 },
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
  { "deepseek-v3-topk.json", MODEL_ERROR_INVALID_FIELD, "'num_experts_per_tok' (300)", 0 },
  { "deepseek-v3-topk-method.json", MODEL_ERROR_UNSUPPORTED, "'topk_method' is 'noaux-tc'", 0 },
  { "deepseek-v2-dense-beyond.json", MODEL_ERROR_INVALID_FIELD, "'first_k_dense_replace'", 0 },
  { "qwen3-moe-mlp-only.json", MODEL_ERROR_UNSUPPORTED, "'mlp_only_layers'", 0 },
  { "gpt-oss-layer-types.json", MODEL_ERROR_INVALID_FIELD, "'layer_types'", 0 },
  { "gpt-oss-swiglu-limit.json", MODEL_ERROR_INVALID_FIELD, "'swiglu_limit' is -7", 0 },
  { "llama4-no-text-config.json", MODEL_ERROR_MISSING_FIELD, "'text_config'", 0 },
  { "deepseek-v3.json", MODEL_ERROR_MISSING_FIELD, "'qk_nope_head_dim'", 0 },
  { "gelu-llama.json", MODEL_ERROR_UNSUPPORTED, "'hidden_act'", 0 },
  { "opt-350m.json", MODEL_ERROR_UNSUPPORTED, "'word_embed_proj_dim'", 0 },
  /* OLMo 2 7B (allenai/OLMo-2-1124-7B): h 4096, L 32, 32 heads = KV heads (d 128), ffn
   * 11008, V 100352, untied; q_norm and k_norm over the whole q and k (4096 each):
   * layer = 4*4096^2 + 4096 + 4096 = 67,117,056 + 3*4096*11008 = 135,266,304 + norms
   * 2*4096 -> 202,391,552, x32 = 6,476,529,664; embeddings 2*100352*4096 = 822,083,584;
   * final 4,096; total 7,298,617,344 (published: 7.30B). */
  { "olmo2-7b.json", -1, NULL, 7298617344 },
  /* Granite 3.0 8B (ibm-granite/granite-3.0-8b-base): h 4096, L 40, 32 heads / 8 KV
   * (d 128), ffn 12800, V 49155, tied: layer = 2*4096^2 + 2*4096*1024 = 41,943,040
   * + 3*4096*12800 = 157,286,400 + 8,192 -> 199,237,632, x40 = 7,969,505,280; embedding
   * 49155*4096 = 201,338,880; final 4,096; total 8,170,848,256 (published: 8.17B). */
  { "granite-3.0-8b.json", -1, NULL, 8170848256 },
  /* Kimi K2 (moonshotai/Kimi-K2-Base, model_type kimi_k2, DeepSeek-V3's blocks): h 7168,
   * 64 heads, MLA q_lora 1536, kv_lora 512, nope 128, rope 64, v 128; attention =
   * 7168*1536 + 1536 + 1536*64*192 + 7168*576 + 512 + 512*64*256 + 64*128*7168 =
   * 101,124,096; norms 14,336; 1 dense layer: + 3*7168*18432 = 396,361,728 ->
   * 497,500,160; 60 MoE layers: router 7168*384 + 384 (noaux_tc bias) = 2,752,896, 384 + 1
   * shared experts of 3*7168*2048 = 44,040,192 -> 101,124,096 + 14,336 + 2,752,896
   * + 385*44,040,192 = 17,059,365,248, x60 = 1,023,561,914,880; embeddings
   * 2*163840*7168 = 2,348,810,240; final 7,168; total 1,026,408,232,448 (published: "1T
   * total"). */
  { "kimi-k2.json", -1, NULL, 1026408232448 },
  /* Gemma 7B (google/gemma-7b, head_dim left out: GemmaConfig's 256, not 3072 / 16):
   * h 3072, L 28, 16 heads = KV heads of 256 (q = 4096), GeGLU ffn 24576, V 256000, tied:
   * layer = 4*3072*4096 = 50,331,648 + 3*3072*24576 = 226,492,416 + 2*3072 ->
   * 276,830,208, x28 = 7,751,245,824; embedding 256000*3072 = 786,432,000; final 3,072;
   * total 8,537,680,896 (published: 8.54B). */
  { "gemma-7b.json", -1, NULL, 8537680896 },
  /* Gemma 3 1B (google/gemma-3-1b-pt, gemma3_text): h 1152, L 26, 4 heads / 1 KV of 256,
   * ffn 6912, V 262144, tied: layer = 1152*1024 + 2*1152*256 + 1024*1152 = 2,949,120 +
   * q/k norms 2*256 + 3*1152*6912 = 23,887,872 + 4 norms 4*1152 -> 26,842,112, x26 =
   * 697,894,912; embedding 262144*1152 = 301,989,888; final 1,152; total 999,885,952
   * (published: 1B). */
  { "gemma3-1b.json", -1, NULL, 999885952 },
  /* Gemma 3 4B (google/gemma-3-4b-it, gemma3 with text_config naming only hidden 2560,
   * ffn 10240, 34 layers: vocab 262208, 8 heads / 4 KV of 256 are Gemma3TextConfig's
   * defaults): layer = 2560*2048 + 2*2560*1024 + 2048*2560 = 15,728,640 + 512 +
   * 3*2560*10240 = 78,643,200 + 4*2560 -> 94,382,592, x34 = 3,209,008,128; embedding
   * 262208*2560 = 671,252,480; final 2,560; total 3,880,263,168 (published 4.30B with
   * the SigLIP vision tower and projector, which tandem does not count). */
  { "gemma3-4b.json", -1, NULL, 3880263168 },
  /* Gemma 2 2B without head_dim: Gemma2Config's 256, not h / a = 2304 / 8 = 288 (which
   * gave 2,660,348,160): layer = 2*2304*2048 + 2*2304*1024 = 14,155,776 + 3*2304*9216 =
   * 63,700,992 + 4*2304 -> 77,865,984, x26 = 2,024,515,584; embedding 256000*2304 =
   * 589,824,000; final 2,304; total 2,614,341,888, the gemma2-2b preset's. */
  { "gemma2-2b-no-head-dim.json", -1, NULL, 2614341888 },
  /* OLMo 3 7B (allenai/Olmo-3-1025-7B): OLMo 2 7B's layers (202,391,552 each, x32 =
   * 6,476,529,664) with V 100278: embeddings 2*100278*4096 = 821,477,376; final 4,096;
   * total 7,298,011,136 (published: 7B, 7.30B on its page). */
  { "olmo3-7b.json", -1, NULL, 7298011136 },
  /* Falcon-7B (tiiuae/falcon-7b-instruct's first config, falcon-7b's architecture: model_type
   * RefinedWebModel, n_layer 32, n_head 71): h 4544, d 64, multi_query without
   * new_decoder_architecture -> 1 KV head; ffn_hidden_size absent -> 4h = 18176; bias false;
   * parallel_attn with one shared LayerNorm; tied (tie_word_embeddings absent -> true):
   * layer = qkv 4544*(4544 + 2*64) = 21,229,568 + dense 4544^2 = 20,647,936
   *       + MLP 2*4544*18176 = 165,183,488 + 1 LayerNorm 2*4544 = 9,088 -> 207,070,080,
   * x32 = 6,626,242,560; embedding 65024*4544 = 295,469,056; ln_f 9,088; total
   * 6,921,720,704 (published 7B; 6.92B). */
  { "falcon-7b-refinedwebmodel.json", -1, NULL, 6921720704 },
  /* Falcon-40B (tiiuae/falcon-40b): h 8192, 128 heads of 64, new_decoder_architecture with
   * num_kv_heads 8 (multi_query ignored), ln_attn and ln_mlp (num_ln_in_parallel_attn
   * absent -> 2), bias false, tied:
   * layer = qkv 8192*(128 + 16)*64 = 75,497,472 + dense 8192^2 = 67,108,864
   *       + MLP 2*8192*32768 = 536,870,912 + 2 LayerNorms 4*8192 = 32,768 -> 679,510,016,
   * x60 = 40,770,600,960; embedding 65024*8192 = 532,676,608; ln_f 16,384; total
   * 41,303,293,952. The published 41.8B counts the lm_head a second time (+532,676,608 =
   * 41,835,970,560); FalconForCausalLM ties it to the embedding. */
  { "falcon-40b.json", -1, NULL, 41303293952 },
  /* Falcon-RW-1B (tiiuae/falcon-rw-1b): h 2048, 32 heads, without multi_query -> 32 KV
   * heads, alibi, bias true, parallel_attn false (input and post-attention LayerNorms),
   * V 50304, tied:
   * layer = qkv 2048*6144 + 6144 = 12,589,056 + dense 2048^2 + 2048 = 4,196,352
   *       + MLP 2*2048*8192 + 8192 + 2048 = 33,564,672 + 2 LayerNorms 8,192 ->
   *       50,358,272, x24 = 1,208,598,528; embedding 50304*2048 = 103,022,592; ln_f
   * 4,096; total 1,311,625,216 (published 1.3B). */
  { "falcon-rw-1b.json", -1, NULL, 1311625216 },
  /* BLOOM (bigscience/bloom): h 14336, L 70 (n_layer), 112 heads (n_head), V 250880, MLP
   * always 4h = 57344, biases everywhere, ALiBi, tied:
   * layer = attn 4*14336^2 + 4*14336 = 822,140,928 + MLP 8*14336^2 + 57344 + 14336 =
   * 1,644,238,848 + 2 LayerNorms 57,344 -> 2,466,437,120, x70 = 172,650,598,400;
   * embedding 250880*14336 = 3,596,615,680 + its LayerNorm 28,672; ln_f 28,672; total
   * 176,247,271,424 (the BLOOM paper's 176,247,271,424). */
  { "bloom-176b.json", -1, NULL, 176247271424 },
  /* DBRX (databricks/dbrx-instruct): d_model 6144, 48 heads of 128, attn_config.kv_n_heads 8,
   * 40 layers, ffn_config 16 experts of 10752 (GLU, ffn_act_fn silu), top 4, V 100352,
   * untied, LayerNorm without bias:
   * layer = Wqkv 6144*(6144 + 2*1024) = 50,331,648 + out 6144^2 = 37,748,736
   *       + 2 norms 12,288 + router 6144*16 = 98,304 + 16 experts x 3*6144*10752
   *       (198,180,864) = 3,170,893,824 -> 3,259,084,800, x40 = 130,363,392,000;
   * embeddings 2*100352*6144 = 1,233,125,376; norm_f 6,144; total 131,596,523,520
   * (published: 132B total). */
  { "dbrx-instruct.json", -1, NULL, 131596523520 },
  /* OLMoE-1B-7B (allenai/OLMoE-1B-7B-0924): h 2048, 16 heads = KV heads, 16 layers, 64
   * experts of 1024, top 8, V 50304, untied; q_norm and k_norm over 2048 each:
   * layer = attn 4*2048^2 = 16,777,216 + q/k norms 4,096 + norms 4,096 + router
   * 2048*64 = 131,072 + 64 x 3*2048*1024 (6,291,456) = 402,653,184 -> 419,569,664, x16 =
   * 6,713,114,624; embeddings 2*50304*2048 = 206,045,184; final 2,048; total
   * 6,919,161,856 (published 6.9B; "7B"). */
  { "olmoe-1b-7b.json", -1, NULL, 6919161856 },
  /* StarCoder2-3B (bigcode/starcoder2-3b): h 3072, 24 heads / 2 KV (d 128), ffn 12288
   * (GeLU, not gated), use_bias, LayerNorms, V 49152, tied (absent -> true):
   * layer = q, o 2*3072^2 + k, v 2*3072*256 = 20,447,232 + biases 3072 + 512 + 3072 =
   * 6,656 + MLP 2*3072*12288 + 12288 + 3072 = 75,512,832 + 2 LayerNorms 12,288 ->
   * 95,979,008, x30 = 2,879,370,240; embedding 49152*3072 = 150,994,944; final 6,144;
   * total 3,030,371,328 (published 3B; 3.03B). */
  { "starcoder2-3b.json", -1, NULL, 3030371328 },
  /* Command R (CohereForAI/c4ai-command-r-v01): h 8192, 64 heads = KV heads, ffn 22528
   * (SwiGLU), one bias-free LayerNorm a parallel block, V 256000, tied (absent -> true):
   * layer = 4*8192^2 = 268,435,456 + 3*8192*22528 = 553,648,128 + 8,192 -> 822,091,776,
   * x40 = 32,883,671,040; embedding 256000*8192 = 2,097,152,000; final 8,192; total
   * 34,980,831,232 (published 35B). */
  { "command-r-v01.json", -1, NULL, 34980831232 },
  /* Command R7B (CohereForAI/c4ai-command-r7b-12-2024, cohere2): h 4096, 32 heads / 8 KV
   * (d 128), ffn 14336, V 256000, tied: layer = 2*4096^2 + 2*4096*1024 = 41,943,040 +
   * 3*4096*14336 = 176,160,768 + 4,096 -> 218,107,904, x32 = 6,979,452,928; embedding
   * 256000*4096 = 1,048,576,000; final 4,096; total 8,028,033,024 (published 7B, 8.03B on
   * its page). */
  { "command-r7b.json", -1, NULL, 8028033024 },
  /* InternLM2-7B (internlm/internlm2-7b): h 4096, 32 heads / 8 KV (d 128), ffn 14336,
   * V 92544, bias false, untied: layer = wqkv 4096*(4096 + 2*1024) + wo 4096^2 =
   * 41,943,040 + 3*4096*14336 = 176,160,768 + 8,192 -> 218,112,000, x32 = 6,979,584,000;
   * embeddings 2*92544*4096 = 758,120,448; final 4,096; total 7,737,708,544 (published
   * 7.74B). */
  { "internlm2-7b.json", -1, NULL, 7737708544 },
  /* MiniCPM4.1-8B (openbmb/MiniCPM4.1-8B): h 4096, 32 heads / 2 KV (d 128), ffn 16384,
   * V 73448, untied; muP scalars count nothing: layer = 2*4096^2 + 2*4096*256 =
   * 35,651,584 + 3*4096*16384 = 201,326,592 + 8,192 -> 236,986,368, x32 =
   * 7,583,563,776; embeddings 2*73448*4096 = 601,686,016; final 4,096; total
   * 8,185,253,888 (published 8B). */
  { "minicpm4.1-8b.json", -1, NULL, 8185253888 },
  /* Phi-2 (microsoft/phi-2): h 2560, 32 heads (d 80), ffn 10240 GeLU, biases everywhere,
   * one LayerNorm a layer, V 51200, untied with an lm_head bias:
   * layer = attn 4*2560^2 + 4*2560 = 26,224,640 + MLP 2*2560*10240 + 10240 + 2560 =
   * 52,441,600 + 1 LayerNorm 5,120 -> 78,671,360, x32 = 2,517,483,520; embeddings
   * 2*51200*2560 = 262,144,000 + head bias 51,200; final LayerNorm 5,120; total
   * 2,779,683,840 (published 2.7B; 2.78B). */
  { "phi-2.json", -1, NULL, 2779683840 },
  /* GLM-4-9B-0414 (THUDM/GLM-4-9B-0414): h 4096, 32 heads / 2 KV of 128, ffn 13696,
   * q/k/v biases (o none), 4 RMSNorms a layer, V 151552, untied:
   * layer = q, o 2*4096^2 + k, v 2*4096*256 = 35,651,584 + biases 4096 + 512 +
   * 3*4096*13696 = 168,296,448 + 4*4096 -> 203,969,024, x40 = 8,158,760,960;
   * embeddings 2*151552*4096 = 1,241,513,984; final 4,096; total 9,400,279,040
   * (published 9B; 9.4B). */
  { "glm-4-9b-0414.json", -1, NULL, 9400279040 },
  /* GLM-4.5 (zai-org/GLM-4.5): h 5120, 96 heads / 8 KV of 128 (q 12288), q/k/v biases,
   * per-head q/k norms, 3 dense layers of 12288, 89 MoE layers of 160 + 1 shared experts
   * of 1536, sigmoid router with its correction bias, V 151552, untied:
   * attention = 5120*12288*2 + 2*5120*1024 = 136,314,880 + biases 12288 + 2048 + q/k
   * norms 256 -> 136,329,472; norms 10,240; dense layer + 3*5120*12288 = 188,743,680 ->
   * 325,083,392, x3 = 975,250,176; MoE layer + router 5120*160 + 160 = 819,360 + 161 x
   * 3*5120*1536 (23,592,960) = 3,798,466,560 -> 3,935,625,632, x89 = 350,270,681,248;
   * embeddings 2*151552*5120 = 1,551,892,480; final 5,120; total 352,797,829,024
   * (published 355B with the MTP layer, which tandem counts apart: 3,988,069,792). */
  { "glm-4.5.json", -1, NULL, 352797829024 },
  /* Qwen2.5-VL-7B (Qwen/Qwen2.5-VL-7B-Instruct), the text model only: Qwen2-7B's sizes,
   * h 3584, 28 heads / 4 KV (d 128), ffn 18944, q/k/v biases, V 152064, untied:
   * layer = 2*3584^2 + 2*3584*512 = 29,360,128 + 3584 + 1024 + 3*3584*18944 =
   * 203,685,888 + 7,168 -> 233,057,792, x28 = 6,525,618,176; embeddings 2*152064*3584 =
   * 1,089,994,752; final 3,584; total 7,615,616,512 (published 8.29B with the 0.68B
   * vision tower, which tandem does not model). */
  { "qwen2.5-vl-7b.json", -1, NULL, 7615616512 },
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

/* The families read by another family's reader: what sets them apart.
 * Kimi K2 active: 1,026,408,232,448 less 60 MoE layers x 376 idle experts x 44,040,192 =
 * 993,546,731,520 -> 32,861,500,928 (published: "32B activated").
 * OLMo 2's q_norm, k_norm weights (32 + 32) x 128 = 8,192 sit in the qk_norm op, so the
 * ops' weights still sum to the total (a per-head norm, Qwen3's, would own 2 x 128). */
static void
test_load_families_by_alias (void)
{
  g_autofree char *kimi_path = data_path ("kimi-k2.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (ModelSpec) kimi = model_spec_lookup (kimi_path, &error);
  g_assert_no_error (error);
  ModelParams p;
  model_spec_params (kimi, &p);
  g_assert_cmpuint (p.active, ==, 32861500928);
  g_assert_true (model_spec_is_mla (kimi));
  g_assert_cmpuint (kimi->first_dense_layers, ==, 1);
  g_assert_cmpint (kimi->router_score, ==, MODEL_ROUTER_SIGMOID);
  g_assert_true (kimi->router_bias);

  g_autofree char *olmo_path = data_path ("olmo2-7b.json");
  g_autoptr (ModelSpec) olmo = model_spec_lookup (olmo_path, &error);
  g_assert_no_error (error);
  g_assert_true (olmo->qk_norm && olmo->qk_norm_full);
  model_spec_params (olmo, &p);
  g_assert_cmpuint (p.attention_per_layer, ==, 67117056);
  g_autoptr (GArray) ops = g_array_new (FALSE, TRUE, sizeof (ModelOp));
  model_spec_ops (olmo, 1, 4096, ops);
  guint64 layer = 0, other = 0;
  for (guint i = 0; i < ops->len; i++)
    {
      const ModelOp *op = &g_array_index (ops, ModelOp, i);
      if (strcmp (op->name, "qk_norm") == 0)
        g_assert_cmpuint (op->weight_params, ==, 8192);
      if (op->part == MODEL_PART_LAYER)
        layer += op->weight_params;
      else
        other += op->weight_params;
    }
  g_assert_cmpuint (olmo->n_layers * layer + other, ==, p.total);

  /* Gemma 3: full attention on each 6th layer (sliding_window_pattern 6), the others
   * within sliding_window: 1B 26 - 26/6 = 22 of 26 at 512; 4B 34 - 5 = 29 of 34 at 1024 */
  static const struct { const char *file; guint64 window, sliding; } g3[] = {
    { "gemma3-1b.json", 512, 22 }, { "gemma3-4b.json", 1024, 29 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (g3); i++)
    {
      g_autofree char *path = data_path (g3[i].file);
      g_autoptr (ModelSpec) g = model_spec_lookup (path, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (g->sliding_window, ==, g3[i].window);
      g_assert_cmpuint (g->n_sliding_layers, ==, g3[i].sliding);
      g_assert_true (g->gelu_gate && g->qk_norm && !g->qk_norm_full && g->tied_embeddings);
      g_assert_cmpuint (g->norms_per_block, ==, 4);
      g_assert_null (g->config_warning);
    }

  /* OLMo 3: layer_types has 24 of 32 layers sliding (full where (i + 1) % 4 == 0) at
   * 4096, the q/k norms of OLMo 2 */
  g_autofree char *olmo3_path = data_path ("olmo3-7b.json");
  g_autoptr (ModelSpec) olmo3 = model_spec_lookup (olmo3_path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (olmo3->sliding_window, ==, 4096);
  g_assert_cmpuint (olmo3->n_sliding_layers, ==, 24);
  g_assert_true (olmo3->qk_norm && olmo3->qk_norm_full);

  /* Falcon-7B: multi-query (1 KV head), one LayerNorm shared by the parallel attention
   * and MLP (no mlp_norm op), rotary; Falcon-40B: 8 KV heads, ln_attn and ln_mlp */
  g_autofree char *f7_path = data_path ("falcon-7b-refinedwebmodel.json");
  g_autoptr (ModelSpec) f7 = model_spec_lookup (f7_path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (f7->n_kv_heads, ==, 1);
  g_assert_cmpuint (f7->norms_per_block, ==, 1);
  g_assert_true (f7->parallel_block && f7->tied_embeddings && !f7->attn_bias);
  g_assert_cmpint (f7->pos, ==, MODEL_POS_ROTARY);
  g_autoptr (GArray) f7_ops = g_array_new (FALSE, TRUE, sizeof (ModelOp));
  model_spec_ops (f7, 1, 2048, f7_ops);
  guint64 f7_sum = 0;
  for (guint i = 0; i < f7_ops->len; i++)
    {
      const ModelOp *op = &g_array_index (f7_ops, ModelOp, i);
      g_assert_cmpstr (op->name, !=, "mlp_norm");
      f7_sum += op->part == MODEL_PART_LAYER ? f7->n_layers * op->weight_params
                                              : op->weight_params;
    }
  g_assert_cmpuint (f7_sum, ==, 6921720704);
  g_autofree char *f40_path = data_path ("falcon-40b.json");
  g_autoptr (ModelSpec) f40 = model_spec_lookup (f40_path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (f40->n_kv_heads, ==, 8);
  g_assert_cmpuint (f40->norms_per_block, ==, 2);
  g_assert_true (f40->parallel_block);
  /* Falcon-40B's first config (model_type RefinedWeb) has no new_decoder_architecture
   * and means it (text-generation-inference RWConfig): n_head_kv 8 KV heads, 2 norms */
  static const char rw40[] =
    "{\"model_type\": \"RefinedWeb\", \"hidden_size\": 8192, \"n_head\": 128,"
    " \"n_head_kv\": 8, \"n_layer\": 60, \"parallel_attn\": true, \"bias\": false,"
    " \"alibi\": false, \"vocab_size\": 65024}";
  g_autoptr (ModelSpec) rw = model_spec_new_from_data (rw40, -1, "falcon-40b-rw.json", &error);
  g_assert_no_error (error);
  model_spec_params (rw, &p);
  g_assert_cmpuint (p.total, ==, 41303293952);
  g_assert_null (rw->config_warning);
  /* Falcon-RW-1B: ALiBi, sequential block (2 LayerNorms), every head its own K and V */
  g_autofree char *rw1_path = data_path ("falcon-rw-1b.json");
  g_autoptr (ModelSpec) rw1 = model_spec_lookup (rw1_path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rw1->pos, ==, MODEL_POS_ALIBI);
  g_assert_cmpuint (rw1->n_kv_heads, ==, 32);
  g_assert_true (!rw1->parallel_block && rw1->attn_bias && rw1->mlp_bias);
  g_assert_cmpuint (rw1->norms_per_block, ==, 2);

  /* BLOOM: ALiBi (no rotary op), the embedding LayerNorm (2 x 14336 = 28,672) an op of
   * its own in the embedding part, which owns 3,596,615,680 + 28,672 */
  g_autofree char *bloom_path = data_path ("bloom-176b.json");
  g_autoptr (ModelSpec) bloom = model_spec_lookup (bloom_path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (bloom->pos, ==, MODEL_POS_ALIBI);
  g_assert_true (bloom->embed_norm && bloom->attn_bias && bloom->mlp_bias);
  model_spec_params (bloom, &p);
  g_assert_cmpuint (p.input_embedding, ==, 3596644352);
  g_autoptr (GArray) bloom_ops = g_array_new (FALSE, TRUE, sizeof (ModelOp));
  model_spec_ops (bloom, 1, 2048, bloom_ops);
  gboolean saw_embed_norm = FALSE;
  for (guint i = 0; i < bloom_ops->len; i++)
    {
      const ModelOp *op = &g_array_index (bloom_ops, ModelOp, i);
      g_assert_cmpstr (op->name, !=, "rotary");
      if (strcmp (op->name, "embed_norm") == 0)
        {
          saw_embed_norm = TRUE;
          g_assert_cmpuint (op->weight_params, ==, 28672);
        }
    }
  g_assert_true (saw_embed_norm);

  /* DBRX active: 131,596,523,520 less 40 layers x 12 idle experts x 198,180,864 =
   * 95,126,814,720 -> 36,469,708,800 (published 36B active). OLMoE active:
   * 6,919,161,856 less 16 x 56 x 6,291,456 = 5,637,144,576 -> 1,282,017,280 (published
   * 1.3B active); its router is not renormalised (norm_topk_prob false), DBRX's is
   * (moe_normalize_expert_weights 1, not null). */
  g_autofree char *dbrx_path = data_path ("dbrx-instruct.json");
  g_autoptr (ModelSpec) dbrx = model_spec_lookup (dbrx_path, &error);
  g_assert_no_error (error);
  model_spec_params (dbrx, &p);
  g_assert_cmpuint (p.active, ==, 36469708800);
  g_assert_cmpuint (dbrx->n_kv_heads, ==, 8);
  g_assert_cmpint (dbrx->norm, ==, MODEL_NORM_LAYER_NOBIAS);
  g_assert_true (dbrx->router_norm_topk && !dbrx->tied_embeddings);
  g_autofree char *olmoe_path = data_path ("olmoe-1b-7b.json");
  g_autoptr (ModelSpec) olmoe = model_spec_lookup (olmoe_path, &error);
  g_assert_no_error (error);
  model_spec_params (olmoe, &p);
  g_assert_cmpuint (p.active, ==, 1282017280);
  g_assert_true (olmoe->qk_norm && olmoe->qk_norm_full && !olmoe->router_norm_topk);

  /* Command R+ (CohereForAI/c4ai-command-r-plus sizes): use_qk_norm gives each q and k
   * head its own bias-free LayerNorm weights, (96 + 8) x 128 = 13,312 a layer:
   * layer = 2*12288^2 + 2*12288*1024 = 327,155,712 + 13,312 + 3*12288*33792 =
   * 1,245,708,288 + 12,288 -> 1,572,889,600, x64 = 100,664,934,400; embedding
   * 256000*12288 = 3,145,728,000 (tied); final 12,288; total 103,810,674,688
   * (published 104B) */
  static const char command_r_plus[] =
    "{\"model_type\": \"cohere\", \"hidden_size\": 12288, \"intermediate_size\": 33792,"
    " \"num_hidden_layers\": 64, \"num_attention_heads\": 96, \"num_key_value_heads\": 8,"
    " \"vocab_size\": 256000, \"use_qk_norm\": true, \"logit_scale\": 0.8333333333333334}";
  g_autoptr (ModelSpec) rplus = model_spec_new_from_data (command_r_plus, -1, "r-plus.json",
                                                          &error);
  g_assert_no_error (error);
  model_spec_params (rplus, &p);
  g_assert_cmpuint (p.total, ==, 103810674688);
  g_assert_true (rplus->qk_norm && rplus->qk_norm_full && rplus->tied_embeddings);

  /* StarCoder2-3B: every layer within sliding_window 4096 (30 of 30); Command R7B:
   * sliding_window_pattern 4 -> 32 - 32/4 = 24 of 32 layers at 4096, one norm a block */
  g_autofree char *sc_path = data_path ("starcoder2-3b.json");
  g_autoptr (ModelSpec) sc = model_spec_lookup (sc_path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sc->n_sliding_layers, ==, 30);
  g_assert_cmpint (sc->mlp, ==, MODEL_MLP_GELU);
  g_autofree char *r7_path = data_path ("command-r7b.json");
  g_autoptr (ModelSpec) r7 = model_spec_lookup (r7_path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r7->sliding_window, ==, 4096);
  g_assert_cmpuint (r7->n_sliding_layers, ==, 24);
  g_assert_cmpuint (r7->norms_per_block, ==, 1);
  g_assert_true (r7->parallel_block && r7->tied_embeddings && !r7->qk_norm);

  /* Phi-2: one LayerNorm a parallel block, rotary over 0.4 x 80 = 32 of each head, an
   * output head of 51200 x 2560 + 51200 (its bias) */
  g_autofree char *phi_path = data_path ("phi-2.json");
  g_autoptr (ModelSpec) phi = model_spec_lookup (phi_path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (model_spec_rotary_dim (phi), ==, 32);
  g_assert_cmpuint (phi->norms_per_block, ==, 1);
  g_assert_true (phi->parallel_block && phi->head_bias && phi->attn_bias && phi->mlp_bias);
  model_spec_params (phi, &p);
  g_assert_cmpuint (p.output_head, ==, 131123200);

  /* GLM-4: q/k/v biases, not o (attn_qkv_bias), 4 norms a layer, rotary over 0.5 x 128 =
   * 64. GLM-4.5: active = 352,797,829,024 less 89 x 152 idle x 23,592,960 =
   * 319,165,562,880 -> 33,632,266,144 (published 32B active, which leaves out the
   * 1,551,892,480 of the embeddings: 32,080,373,664) */
  g_autofree char *glm_path = data_path ("glm-4-9b-0414.json");
  g_autoptr (ModelSpec) glm = model_spec_lookup (glm_path, &error);
  g_assert_no_error (error);
  g_assert_true (glm->attn_qkv_bias && !glm->attn_bias);
  g_assert_cmpuint (glm->norms_per_block, ==, 4);
  g_assert_cmpuint (model_spec_rotary_dim (glm), ==, 64);
  g_autofree char *glm45_path = data_path ("glm-4.5.json");
  g_autoptr (ModelSpec) glm45 = model_spec_lookup (glm45_path, &error);
  g_assert_no_error (error);
  model_spec_params (glm45, &p);
  g_assert_cmpuint (p.active, ==, 33632266144);
  g_assert_cmpuint (p.mtp, ==, 3988069792);
  g_assert_cmpuint (glm45->first_dense_layers, ==, 3);
  g_assert_cmpint (glm45->router_score, ==, MODEL_ROUTER_SIGMOID);
  g_assert_true (glm45->router_bias && glm45->qk_norm && !glm45->qk_norm_full);

  /* InternLM2's "bias" defaults to true (InternLM2Config): without the field wqkv and wo
   * carry biases, 4096 + 2*1024 + 4096 = 10,240 a layer more than internlm2-7b's 0 */
  static const char internlm2_nobias_field[] =
    "{\"model_type\": \"internlm2\", \"hidden_size\": 4096, \"intermediate_size\": 14336,"
    " \"num_hidden_layers\": 32, \"num_attention_heads\": 32, \"num_key_value_heads\": 8,"
    " \"vocab_size\": 92544}";
  g_autoptr (ModelSpec) il = model_spec_new_from_data (internlm2_nobias_field, -1,
                                                       "internlm2.json", &error);
  g_assert_no_error (error);
  g_assert_true (il->attn_bias && !il->mlp_bias);
  model_spec_params (il, &p);
  g_assert_cmpuint (p.attention_per_layer, ==, 41943040 + 10240);

  /* Qwen2-VL with the text model under text_config (as newer transformers save it) reads
   * as the same 7,615,616,512 */
  static const char qwen2_vl_nested[] =
    "{\"model_type\": \"qwen2_vl\", \"vision_config\": {\"depth\": 32},"
    " \"text_config\": {\"hidden_size\": 3584, \"intermediate_size\": 18944,"
    " \"num_hidden_layers\": 28, \"num_attention_heads\": 28, \"num_key_value_heads\": 4,"
    " \"vocab_size\": 152064, \"tie_word_embeddings\": false}}";
  g_autoptr (ModelSpec) qvl = model_spec_new_from_data (qwen2_vl_nested, -1, "qwen2-vl.json",
                                                        &error);
  g_assert_no_error (error);
  model_spec_params (qvl, &p);
  g_assert_cmpuint (p.total, ==, 7615616512);
  g_assert_true (qvl->attn_qkv_bias);

  /* Granite's multipliers are scalars: the Llama modules, tied */
  g_autofree char *granite_path = data_path ("granite-3.0-8b.json");
  g_autoptr (ModelSpec) granite = model_spec_lookup (granite_path, &error);
  g_assert_no_error (error);
  g_assert_true (granite->tied_embeddings);
  g_assert_null (granite->config_warning);
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

/* Every MoE preset and the dense families added with them, against the published counts.
 * `total` and `active` are exact, derived by hand (per layer: attention + norms + router
 * + E experts + shared experts; active keeps top_k of the E experts):
 *  - qwen1.5-moe-a2.7b (qwen2_moe): h 2048, L 24, 16 heads (d 128), 60 experts of 1408,
 *    top 4, shared 5632 + gate, V 151936: attention 4*2048^2 + q/k/v biases 3*2048 =
 *    16,783,360; expert 3*2048*1408 = 8,650,752; shared 3*2048*5632 + 2048 = 34,605,056;
 *    router 122,880; norms 4,096 -> layer 570,560,512, x24 + 2*151936*2048 + 2048 =
 *    14,315,784,192; active - 24*56*8,650,752 = 2,689,173,504.
 *    Model card: "14.3B parameters in total and 2.7B activated".
 *  - qwen3-30b-a3b (qwen3_moe): h 2048, L 48, 32 heads / 4 KV (d 128), q/k norms 256,
 *    128 experts of 768, top 8: attention 2*2048*4096 + 2*2048*512 + 256 = 18,874,624;
 *    expert 4,718,592; router 262,144; norms 4,096 -> layer 623,120,640, x48 =
 *    29,909,790,720 (+ final 2,048: "29.9B non-embedding") + 2*151936*2048 =
 *    30,532,122,624 ("30.5B"); active 3,353,032,704 ("3.3B activated").
 *  - qwen3-235b-a22b: h 4096, L 94, 64 heads / 4 KV, 128 experts of 1536, top 8: layer
 *    71,303,424 + 128*18,874,368 + 524,288 + 8,192 = 2,487,755,008, x94 + 2*151936*4096
 *    + 4096 = 235,093,634,560 ("235B"); active 22,190,763,520 ("22B activated").
 *  - deepseek-v2: h 5120, L 60 (1 dense), 128 heads, MLA q_lora 1536, kv_lora 512, nope
 *    128, rope 64, v 128: attention 5120*1536 + 1536 + 1536*128*192 + 5120*576 + 512 +
 *    512*128*256 + 128*128*5120 = 149,227,520; dense MLP 3*5120*12288; 160 experts of
 *    1536 (23,592,960 each), 2 shared (47,185,920), router 819,200 -> MoE layer
 *    3,972,116,480; total 337,981,440 + 59*3,972,116,480 + 2*102400*5120 + 5120 =
 *    235,741,434,880; active 21,375,800,320. Paper: "236B total, 21B activated".
 *  - deepseek-v3: h 7168, L 61 (3 dense), MLA as V2: attention 187,107,328; dense layer
 *    583,483,392; 256 experts of 2048 (44,040,192 each), 1 shared, router 7168*256 + 256
 *    (e_score_correction_bias) -> MoE layer 11,507,286,272; total 3*583,483,392 +
 *    58*11,507,286,272 + 2*129280*7168 + 7168 = 671,026,419,200; active
 *    37,552,297,472. Report: "671B total parameters with 37B activated".
 *  - gpt-oss-120b: h 2880, L 36, 64 heads / 8 KV (d 64), q/k/v/o biases, 64 sinks:
 *    attention 26,550,144; 128 experts of 2880 with biases (24,891,840 each), router
 *    2880*128 + 128 -> layer 3,213,080,192; total x36 + 2*201088*2880 + 2880 =
 *    116,829,156,672 (card: 116.83B); active 5,711,982,912, of which the card counts all
 *    but the embedding table (579,133,440): 5,132,849,472 (card: 5.13B).
 *  - gpt-oss-20b: L 24, 32 experts: layer 823,186,976; total 20,914,757,184 (20.91B);
 *    active 4,187,440,704, less the table 3,608,307,264 (3.61B).
 *  - llama4-scout: h 5120, L 48, 40 heads / 8 KV, 16 experts of 8192, top 1, one shared
 *    expert of 8192: layer 62,914,560 + 16*125,829,120 + 125,829,120 + 81,920 + 10,240 =
 *    2,202,101,760; total x48 + 2*202048*5120 + 5120 = 107,769,861,120; active
 *    17,172,894,720 ("17B"). Meta's 109B total includes the vision encoder (~0.9B), which
 *    tandem does not count.
 *  - llama4-maverick: 128 experts, every other layer MoE (24), the others dense with
 *    16384: 24*314,583,040 + 24*16,295,536,640 + 2,068,976,640 = 400,711,848,960 ("400B");
 *    active 17,184,691,200 ("17B").
 *  - qwen2-7b: h 3584, L 28, 28 heads / 4 KV, q/k/v biases but no o bias (the fix:
 *    7,615,716,864 with it), ffn 18944, V 152064: 7,615,616,512 (the HF page's 7.62B).
 *  - qwen3-8b: h 4096, L 36, 32 / 8 heads (d 128) + q/k norms, ffn 12288, V 151936:
 *    layer 192,946,432; total 8,190,735,360 ("8.2B"), non-embedding 6,946,075,648 ("6.95B").
 *  - phi3-mini: h 3072, L 32, 32 heads, ffn 8192, V 32064: 3,821,079,552 ("3.8B").
 *  - gemma2-2b / 9b / 27b: head_dim 256 / 256 / 128, 4 norms per layer, GeGLU, tied: the
 *    Gemma 2 report's non-embedding counts exactly, 2,024,517,888 / 8,324,201,984 /
 *    26,047,480,320 (e.g. 9B: 42 * (3584*4096*2 + 2*3584*2048 + 3*3584*14336 + 4*3584)
 *    + 3584).
 *  - qwen3-next-80b-a3b: test_params_qwen3_next.
 * Published figures are checked to their last printed digit (`unit`): within one unit,
 * since some sources round (Qwen 2.69 -> 2.7) and some truncate (DeepSeek 37.55 -> 37). */
static void
test_params_families (void)
{
  static const struct {
    const char *name, *type;
    guint64 total, active;
    double pub_total, pub_active, unit;   /* billions; 0 = not published as such */
    gboolean active_less_table;           /* the source's active leaves out V x h */
  } want[] = {
    { "qwen1.5-moe-a2.7b", "qwen2_moe", 14315784192, 2689173504, 14.3, 2.7, 0.1, FALSE },
    { "qwen3-30b-a3b", "qwen3_moe", 30532122624, 3353032704, 30.5, 3.3, 0.1, FALSE },
    { "qwen3-235b-a22b", "qwen3_moe", 235093634560, 22190763520, 235, 22, 1, FALSE },
    { "deepseek-v2", "deepseek_v2", 235741434880, 21375800320, 236, 21, 1, FALSE },
    { "deepseek-v3", "deepseek_v3", 671026419200, 37552297472, 671, 37, 1, FALSE },
    { "gpt-oss-120b", "gpt_oss", 116829156672, 5711982912, 116.83, 5.13, 0.01, TRUE },
    { "gpt-oss-20b", "gpt_oss", 20914757184, 4187440704, 20.91, 3.61, 0.01, TRUE },
    { "llama4-scout", "llama4", 107769861120, 17172894720, 0, 17, 1, FALSE },
    { "llama4-maverick", "llama4", 400711848960, 17184691200, 400, 17, 1, FALSE },
    { "qwen2-7b", "qwen2", 7615616512, 7615616512, 7.62, 0, 0.01, FALSE },
    { "qwen3-8b", "qwen3", 8190735360, 8190735360, 8.2, 0, 0.1, FALSE },
    { "phi3-mini", "phi3", 3821079552, 3821079552, 3.82, 0, 0.01, FALSE },
    { "gemma2-2b", "gemma2", 2614341888, 2614341888, 0, 0, 0, FALSE },
    { "gemma2-9b", "gemma2", 9241705984, 9241705984, 0, 0, 0, FALSE },
    { "gemma2-27b", "gemma2", 27227128320, 27227128320, 0, 0, 0, FALSE },
    { "mistral-7b", "mistral", 7241732096, 7241732096, 7.24, 0, 0.01, FALSE },
    { "qwen3-next-80b-a3b", "qwen3_next", 79674391296, 3874929408, 80, 3, 1, FALSE },
    /* the MoE presets a published row's model cell may name (res_pub_moe_from_preset);
     * totals as the data/models tests derive them: Kimi K2 report 1.04T / 32B, DBRX
     * 132B / 36B, OLMoE 6.9B / 1.3B (its name's 1B-7B), GLM-4.5 355B / 32B (its card;
     * the loader's 352.8B / 33.6B within 3B) */
    { "kimi-k2", "kimi_k2", 1026408232448, 32861500928, 1040, 32, 15, FALSE },
    { "dbrx", "dbrx", 131596523520, 36469708800, 132, 36, 1, FALSE },
    { "olmoe-1b-7b", "olmoe", 6919161856, 1282017280, 6.9, 1.3, 0.1, FALSE },
    { "glm-4.5", "glm4_moe", 352797829024, 33632266144, 355, 32, 3, FALSE },
    /* GLM-4.5-Air: its card's 106B total / 12B active; the loader's 106.85B / 13.42B,
     * 12.80B without the input embedding table (1 dense + 45 MoE layers of 128 experts of
     * 1408 and one shared, top 8; slime's glm4.5-106B-A12B.sh) */
    { "glm-4.5-air", "glm4_moe", 106852251264, 13424129664, 106, 12, 1, TRUE },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (want); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (ModelSpec) s = model_spec_load_preset (want[i].name, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (s->model_type, ==, want[i].type);
      ModelParams p;
      model_spec_params (s, &p);
      g_test_message ("%s: total %" G_GUINT64_FORMAT " active %" G_GUINT64_FORMAT,
                      want[i].name, p.total, p.active);
      g_assert_cmpuint (p.total, ==, want[i].total);
      g_assert_cmpuint (p.active, ==, want[i].active);
      g_assert_cmpuint (p.total, ==, p.embedding + p.non_embedding);
      g_assert_cmpuint (p.total, ==, p.n_dense_layers * p.per_layer
                                     + p.n_moe_layers * p.per_moe_layer + p.final_norm
                                     + p.embedding
                                     + p.n_linear_layers * p.linear_attention_per_layer
                                     - p.n_linear_layers * p.attention_per_layer);
      if (want[i].pub_total > 0)
        g_assert_cmpfloat (fabs ((double) p.total / 1e9 - want[i].pub_total), <, want[i].unit);
      double active = (double) (want[i].active_less_table ? p.active - p.input_embedding
                                                          : p.active);
      if (want[i].pub_active > 0)
        g_assert_cmpfloat (fabs (active / 1e9 - want[i].pub_active), <, want[i].unit);
      g_assert_cmpint (model_spec_is_moe (s), ==, want[i].total != want[i].active);
    }

  /* gpt-oss's expert activation clamp: the configs' swiglu_limit 7.0; none elsewhere */
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr (ModelSpec) s = model_spec_load_preset (i == 0 ? "gpt-oss-120b" : "mixtral-8x7b",
                                                        NULL);
      g_assert_nonnull (s);
      g_assert_cmpfloat (s->glu_limit, ==, i == 0 ? 7.0 : 0.0);
    }

  /* the Gemma 2 report's non-embedding counts, exactly */
  static const struct { const char *name; guint64 non_embedding; } gemma[] = {
    { "gemma2-2b", 2024517888 }, { "gemma2-9b", 8324201984 }, { "gemma2-27b", 26047480320 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (gemma); i++)
    {
      g_autoptr (ModelSpec) s = model_spec_load_preset (gemma[i].name, NULL);
      ModelParams p;
      model_spec_params (s, &p);
      g_assert_cmpuint (p.non_embedding, ==, gemma[i].non_embedding);
      g_assert_true (s->gelu_gate);
      g_assert_cmpuint (p.norms_per_layer, ==, 4 * s->hidden);
    }

  /* Qwen3: 29.9B / 234B / 6.95B non-embedding (model cards) */
  static const struct { const char *name; double pub, unit; } nonemb[] = {
    { "qwen3-30b-a3b", 29.9, 0.1 }, { "qwen3-235b-a22b", 234, 1 }, { "qwen3-8b", 6.95, 0.01 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (nonemb); i++)
    {
      g_autoptr (ModelSpec) s = model_spec_load_preset (nonemb[i].name, NULL);
      ModelParams p;
      model_spec_params (s, &p);
      g_assert_cmpfloat (fabs ((double) p.non_embedding / 1e9 - nonemb[i].pub), <,
                         nonemb[i].unit);
    }
}

/* Nemotron-H (presets rebuilt from the Hugging Face configs; shapes from transformers
 * modeling_nemotron_h.py), by hand. 56B: h 8192, 118 layers "M-M-M-M*-..." = 54 Mamba,
 * 10 attention, 54 MLP, V 131072 untied:
 *   Mamba mixer, d_inner 256 x 64 = 16,384, G N = 8 x 256 = 4,096: in_proj 8192 x
 *     (2 x 16,384 + 2 x 4,096 + 256) = 8192 x 37,120 = 304,087,040; conv1d (16,384 +
 *     4,096) x (4 taps + bias) = 102,400; dt_bias, A_log, D 3 x 256 = 768; gated norm
 *     16,384; out_proj 16,384 x 8192 = 134,217,728 -> 438,424,320;
 *   attention: q, o 2 x 8192 x 8192 = 134,217,728, k, v 2 x 8192 x 8 x 128 = 16,777,216
 *     -> 150,994,944;  MLP (relu2, ungated): 2 x 8192 x 32,768 = 536,870,912;
 *   one pre-norm (8192) per layer: 118 x 8192 = 966,656;
 *   total 54 x 438,424,320 + 10 x 150,994,944 + 54 x 536,870,912 + 966,656 + 8192 (final
 *     norm) + 2 x 131,072 x 8192 = 23,674,913,280 + 1,509,949,440 + 28,991,029,248 +
 *     966,656 + 8,192 + 2,147,483,648 = 56,324,350,464 (model card: "56B").
 * 8B: h 4096, 52 layers = 24 Mamba, 4 attention, 24 MLP, 128 heads of 64, state 128:
 *   Mamba 4096 x 18,560 + 10,240 x 5 + 384 + 8192 + 8192 x 4096 = 109,635,968; attention
 *   2 x 4096^2 + 2 x 4096 x 1024 = 41,943,040; MLP 2 x 4096 x 21,504 = 176,160,768;
 *   total 24 x 109,635,968 + 4 x 41,943,040 + 24 x 176,160,768 + 52 x 4096 + 4096 +
 *   2 x 131,072 x 4096 = 8,100,852,736 (model card: "8B"). */
static void
test_params_nemotron_h (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ModelSpec) s = model_spec_load_preset ("nemotron-h-56b", &error);
  g_assert_no_error (error);
  g_assert_true (model_spec_is_mamba (s));
  g_assert_false (model_spec_is_gdn (s));
  g_assert_cmpuint (s->mamba_heads, ==, 256);
  g_assert_cmpuint (s->mamba_state, ==, 256);
  g_assert_cmpuint (s->head_dim, ==, 128);   /* attention_head_dim */
  g_assert_cmpint (s->pos, ==, MODEL_POS_NONE);
  g_assert_cmpint (s->mlp, ==, MODEL_MLP_GELU);   /* relu2: the ungated shapes */
  g_assert_cmpuint (model_spec_n_layers_of_kind (s, 'M'), ==, 54);
  g_assert_cmpuint (model_spec_n_layers_of_kind (s, '*'), ==, 10);
  g_assert_cmpuint (model_spec_n_layers_of_kind (s, '-'), ==, 54);
  /* "M-M-M-M*-": layers 0, 2, 4, 6 Mamba, 7 attention, 8 MLP */
  g_assert_cmpint (model_spec_layer_kind (s, 0), ==, 'M');
  g_assert_cmpint (model_spec_layer_kind (s, 1), ==, '-');
  g_assert_cmpint (model_spec_layer_kind (s, 7), ==, '*');
  g_assert_cmpint (model_spec_layer_kind (s, 118), ==, 0);
  g_assert_true (model_spec_layer_is_linear (s, 6));
  g_assert_false (model_spec_layer_is_linear (s, 7));
  ModelParams p;
  model_spec_params (s, &p);
  g_assert_cmpuint (p.linear_attention_per_layer, ==, 438424320);
  g_assert_cmpuint (p.attention_per_layer, ==, 150994944);
  g_assert_cmpuint (p.mlp_per_layer, ==, 536870912);
  g_assert_cmpuint (p.n_linear_layers, ==, 54);
  g_assert_cmpuint (p.n_attn_layers, ==, 10);
  g_assert_cmpuint (p.n_mlp_layers, ==, 54);
  g_assert_cmpuint (p.total, ==, 56324350464);
  g_assert_cmpuint (p.active, ==, p.total);
  g_assert_cmpfloat (fabs ((double) p.total / 1e9 - 56.0), <, 1.0);   /* "56B" */
  /* the ops' weights add up to the total */
  g_autoptr (GArray) ops = g_array_new (FALSE, TRUE, sizeof (ModelOp));
  model_spec_ops (s, 1, 128, ops);
  guint64 w[8] = { 0 };
  for (guint i = 0; i < ops->len; i++)
    {
      const ModelOp *op = &g_array_index (ops, ModelOp, i);
      w[op->part] += op->weight_params;
    }
  g_assert_cmpuint (w[MODEL_PART_EMBEDDING] + w[MODEL_PART_HEAD]
                    + 54 * w[MODEL_PART_LINEAR_ATTN] + 10 * w[MODEL_PART_FULL_ATTN]
                    + 54 * w[MODEL_PART_LAYER], ==, p.total);

  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "models",
                                                 "nemotron-h-8b.json", NULL);
  g_autoptr (ModelSpec) e = model_spec_load_file (path, &error);
  g_assert_no_error (error);
  model_spec_params (e, &p);
  g_assert_cmpuint (p.linear_attention_per_layer, ==, 109635968);
  g_assert_cmpuint (p.attention_per_layer, ==, 41943040);
  g_assert_cmpuint (p.mlp_per_layer, ==, 176160768);
  g_assert_cmpuint (p.total, ==, 8100852736);
  g_assert_cmpfloat (fabs ((double) p.total / 1e9 - 8.0), <, 0.5);   /* "8B" */
}

/* NemotronHConfig's defaults fill what a config leaves out, and a bad pattern or Mamba
 * geometry is refused naming the field. */
static void
test_nemotron_h_errors (void)
{
  g_autoptr (GError) error = NULL;
  /* the defaults (NemotronHConfig): 32 / 8 heads of 128, ffn 21504, 128 Mamba heads of
   * 64, 8 groups, state 128, conv 4 with bias, chunk 128, V 131072: the 8B preset less
   * every field but the hidden size (required, as in every family) and the layers */
  static const char minimal[] =
    "{\"model_type\": \"nemotron_h\", \"hidden_size\": 4096, \"num_hidden_layers\": 52, "
    "\"hybrid_override_pattern\": "
    "\"M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-\"}";
  g_autoptr (ModelSpec) d = model_spec_new_from_data (minimal, -1, "min.json", &error);
  g_assert_no_error (error);
  ModelParams p;
  model_spec_params (d, &p);
  g_assert_cmpuint (p.total, ==, 8100852736);
  g_assert_cmpuint (d->mamba_chunk, ==, 128);

  /* the list form (layers_block_type, legacy and current names mixed) reads as the same
   * pattern: "M*-" */
  static const char listed[] =
    "{\"model_type\": \"nemotron_h\", \"hidden_size\": 4096, \"num_hidden_layers\": 3, "
    "\"layers_block_type\": [\"mamba\", \"full_attention\", \"mlp\"]}";
  g_autoptr (ModelSpec) l = model_spec_new_from_data (listed, -1, "list.json", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (l->layer_pattern, ==, "M*-");

  static const struct { const char *json; int code; const char *needle; } bad[] = {
    { "{\"model_type\": \"nemotron_h\", \"hidden_size\": 4096, \"num_hidden_layers\": 3, "
      "\"hybrid_override_pattern\": \"M*X\"}", MODEL_ERROR_INVALID_FIELD, "'X' at layer 2" },
    /* a character outside ASCII is named whole and counted once (its two bytes were
     * counted as two characters) */
    { "{\"model_type\": \"nemotron_h\", \"hidden_size\": 4096, \"num_hidden_layers\": 3, "
      "\"hybrid_override_pattern\": \"M\u00e9-\"}", MODEL_ERROR_INVALID_FIELD,
      "has '\xc3\xa9' at layer 1" },
    { "{\"model_type\": \"nemotron_h\", \"hidden_size\": 4096, \"num_hidden_layers\": 3, "
      "\"hybrid_override_pattern\": \"ME-\"}", MODEL_ERROR_INVALID_FIELD, "MoE" },
    { "{\"model_type\": \"nemotron_h\", \"hidden_size\": 4096, \"num_hidden_layers\": 4, "
      "\"hybrid_override_pattern\": \"M*-\"}", MODEL_ERROR_INVALID_FIELD,
      "3 characters, not 'num_hidden_layers' (4" },
    { "{\"model_type\": \"nemotron_h\", \"hidden_size\": 4096, \"num_hidden_layers\": 2}",
      MODEL_ERROR_MISSING_FIELD, "hybrid_override_pattern" },
    { "{\"model_type\": \"nemotron_h\", \"hidden_size\": 4096, \"num_hidden_layers\": 2, "
      "\"hybrid_override_pattern\": \"M-\", \"mamba_num_heads\": 96}",
      MODEL_ERROR_INVALID_FIELD, "'expand' x 'hidden_size'" },
    { "{\"model_type\": \"nemotron_h\", \"hidden_size\": 4096, \"num_hidden_layers\": 2, "
      "\"hybrid_override_pattern\": \"M-\", \"n_groups\": 3}",
      MODEL_ERROR_INVALID_FIELD, "'n_groups' (3) does not divide" },
    { "{\"model_type\": \"nemotron_h\", \"hidden_size\": 4096, \"num_hidden_layers\": 2, "
      "\"hybrid_override_pattern\": \"M-\", \"mlp_hidden_act\": \"silu\"}",
      MODEL_ERROR_INVALID_FIELD, "relu2" },
    { "{\"model_type\": \"nemotron_h\", \"hidden_size\": 4096, \"num_hidden_layers\": 2, "
      "\"layers_block_type\": [\"mamba\", \"conv\"]}", MODEL_ERROR_INVALID_FIELD,
      "\"conv\" at layer 1" },
    { "{\"model_type\": \"nemotron_h\", \"hidden_size\": 4096, \"num_hidden_layers\": 2, "
      "\"layers_block_type\": [\"mamba\", \"moe\"]}", MODEL_ERROR_INVALID_FIELD, "MoE" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_clear_error (&error);
      g_autoptr (ModelSpec) b = model_spec_new_from_data (bad[i].json, -1, "bad.json", &error);
      g_assert_null (b);
      g_assert_error (error, MODEL_ERROR, bad[i].code);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, bad[i].needle));
    }
}

/* Qwen3-Next-80B-A3B (preset from the Hugging Face config; shapes from transformers
 * modular_qwen3_next.py), by hand: h 2048, V 151936, 48 layers, every 4th full attention:
 *   full attention (Qwen3NextAttention): q_proj 2048 x 2*16*256 (query and output gate)
 *     16,777,216 + k_proj, v_proj 2 x 2048 x 2*256 = 2,097,152 + o_proj 4096 x 2048
 *     8,388,608 + q_norm, k_norm 2*256 = 27,263,488;
 *   GDN mixer (Qwen3NextGatedDeltaNet), key_dim 16*128 = 2048, value_dim 32*128 = 4096:
 *     in_proj_qkvz 2048 x (2*2048 + 2*4096) 25,165,824 + in_proj_ba 2048 x 64 131,072 +
 *     conv1d (2*2048 + 4096) x 4 = 32,768 + dt_bias, A_log 64 + norm 128 + out_proj
 *     4096 x 2048 8,388,608 = 33,718,464;
 *   MoE (Qwen3NextSparseMoeBlock): router 2048 x 512 = 1,048,576, 512 experts of
 *     3 x 2048 x 512 = 3,145,728 (1,610,612,736), shared expert 3,145,728 + gate 2,048;
 *     norms 2 x 2048 -> 1,614,813,184 per layer besides its mixer;
 *   total 48 x 1,614,813,184 + 12 x 27,263,488 + 36 x 33,718,464 + 2,048 (final norm) +
 *     2 x 151936 x 2048 (untied) = 77,511,032,832 + 327,161,856 + 1,213,864,704 + 2,048 +
 *     622,329,856 = 79,674,391,296 (model card: "80B in total");
 *   active: less 48 x 502 idle experts x 3,145,728 = 75,799,461,888 -> 3,874,929,408
 *     ("3B activated"; 3,252,599,552 without the embedding tables). */
static void
test_params_qwen3_next (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ModelSpec) s = model_spec_load_preset ("qwen3-next-80b-a3b", &error);
  g_assert_no_error (error);
  g_assert_true (model_spec_is_gdn (s));
  g_assert_true (model_spec_is_moe (s));
  g_assert_true (s->attn_output_gate);
  g_assert_true (s->qk_norm);
  g_assert_true (s->shared_expert_gate);
  g_assert_cmpuint (s->head_dim, ==, 256);
  g_assert_cmpuint (model_spec_rotary_dim (s), ==, 64);
  g_assert_cmpuint (model_spec_n_linear_layers (s), ==, 36);
  /* layers 0, 1, 2 GDN, 3 full; ... 47 full */
  g_assert_true (model_spec_layer_is_linear (s, 0));
  g_assert_true (model_spec_layer_is_linear (s, 2));
  g_assert_false (model_spec_layer_is_linear (s, 3));
  g_assert_true (model_spec_layer_is_linear (s, 44));
  g_assert_false (model_spec_layer_is_linear (s, 47));
  g_assert_false (model_spec_layer_is_linear (s, 48));
  ModelParams p;
  model_spec_params (s, &p);
  g_assert_cmpuint (p.attention_per_layer, ==, 27263488);
  g_assert_cmpuint (p.linear_attention_per_layer, ==, 33718464);
  g_assert_cmpuint (p.n_linear_layers, ==, 36);
  g_assert_cmpuint (p.n_moe_layers, ==, 48);
  g_assert_cmpuint (p.per_moe_layer, ==, 1614813184 + 27263488);
  g_assert_cmpuint (p.shared_per_layer, ==, 3145728 + 2048);
  g_assert_cmpuint (p.total, ==, 79674391296);
  g_assert_cmpuint (p.active, ==, 3874929408);
  g_assert_cmpuint (p.active - p.embedding, ==, 3252599552);

  /* Qwen3NextConfig defaults fill absent fields: the preset without its GDN fields
   * loads the same model */
  static const char minimal[] =
    "{\"model_type\": \"qwen3_next\", \"hidden_size\": 2048, \"intermediate_size\": 5120,"
    " \"num_hidden_layers\": 48, \"num_attention_heads\": 16, \"num_key_value_heads\": 2,"
    " \"vocab_size\": 151936, \"num_experts\": 512, \"num_experts_per_tok\": 10,"
    " \"moe_intermediate_size\": 512, \"shared_expert_intermediate_size\": 512}";
  g_autoptr (ModelSpec) d = model_spec_new_from_data (minimal, -1, "min.json", &error);
  g_assert_no_error (error);
  ModelParams pd;
  model_spec_params (d, &pd);
  g_assert_cmpuint (pd.total, ==, 79674391296);
  g_assert_cmpuint (model_spec_rotary_dim (d), ==, 64);

  /* interval 2: 24 GDN + 24 full = 79,674,391,296 - 12 x (33,718,464 - 27,263,488) */
  g_autofree char *every2 = g_strdup_printf ("%.*s, \"full_attention_interval\": 2}",
                                             (int) strlen (minimal) - 1, minimal);
  g_autoptr (ModelSpec) e2 = model_spec_new_from_data (every2, -1, "e2.json", &error);
  g_assert_no_error (error);
  model_spec_params (e2, &pd);
  g_assert_cmpuint (pd.n_linear_layers, ==, 24);
  g_assert_cmpuint (pd.total, ==, 79674391296 - 12 * (33718464 - 27263488));

  /* refused: a layer_types list that is not the interval's pattern, key heads that do not
   * divide the value heads, a rotary fraction outside (0, 1] */
  static const struct { const char *extra; int code; const char *needle; } bad[] = {
    { "\"num_hidden_layers\": 4, \"layer_types\": [\"linear_attention\", \"full_attention\","
      " \"linear_attention\", \"full_attention\"]", MODEL_ERROR_UNSUPPORTED, "layer_types" },
    { "\"num_hidden_layers\": 4, \"layer_types\": [\"linear_attention\"]",
      MODEL_ERROR_INVALID_FIELD, "layer_types" },
    { "\"linear_num_key_heads\": 12", MODEL_ERROR_INVALID_FIELD, "linear_num_key_heads" },
    { "\"partial_rotary_factor\": 1.5", MODEL_ERROR_INVALID_FIELD, "partial_rotary_factor" },
    { "\"linear_value_head_dim\": \"128\"", MODEL_ERROR_INVALID_FIELD, "linear_value_head_dim" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      /* the override follows the base; a key of the base (num_hidden_layers) is changed
       * in its place, as a key named twice is refused (util_json_check_depth) */
      const char *layers = "\"num_hidden_layers\": 4, ";
      const char *extra = bad[i].extra;
      g_autoptr (GString) base = g_string_new (minimal);
      if (g_str_has_prefix (extra, layers))
        {
          g_assert_cmpuint (g_string_replace (base, "\"num_hidden_layers\": 48",
                                              "\"num_hidden_layers\": 4", 0), ==, 1);
          extra += strlen (layers);
        }
      g_autofree char *text = g_strdup_printf ("%.*s, %s}", (int) base->len - 1, base->str,
                                               extra);
      g_autoptr (GError) err = NULL;
      g_autoptr (ModelSpec) x = model_spec_new_from_data (text, -1, "bad.json", &err);
      g_assert_null (x);
      g_assert_error (err, MODEL_ERROR, bad[i].code);
      g_assert_nonnull (strstr (err->message, bad[i].needle));
    }
}

/* DeepSeek-V3 in detail: MLA sizes, the layer pattern (3 dense, then 58 MoE), the router
 * bias, and the multi-token-prediction module counted apart: one MoE block 11,507,286,272
 * + eh_proj 2*7168*7168 = 102,760,448 + enorm, hnorm, final norm 3*7168 = 21,504 ->
 * 11,610,068,224 (active: less 248 experts, 688,100,608). The released checkpoint also
 * stores a copy of the embedding and the head for it (2*129280*7168 = 1,853,358,080): 13.46B,
 * and main + that = 684,489,845,504, which the FP8 block scales (1/16,384 of the FP8
 * weights) lift to the card's "685B" (671B main + "14B" MTP). */
static void
test_params_deepseek_v3 (void)
{
  g_autoptr (ModelSpec) s = model_spec_load_preset ("deepseek-v3", NULL);
  g_assert_true (model_spec_is_mla (s));
  g_assert_cmpuint (s->q_lora_rank, ==, 1536);
  g_assert_cmpuint (s->kv_lora_rank, ==, 512);
  g_assert_cmpuint (s->head_dim, ==, 192);
  g_assert_cmpuint (s->n_kv_heads, ==, 128);
  g_assert_cmpuint (s->first_dense_layers, ==, 3);
  g_assert_cmpuint (s->shared_expert_ffn, ==, 2048);
  g_assert_cmpint (s->router_score, ==, MODEL_ROUTER_SIGMOID);
  g_assert_true (s->router_bias);
  g_assert_cmpuint (s->mtp_layers, ==, 1);
  g_assert_false (model_spec_layer_is_moe (s, 2));
  g_assert_true (model_spec_layer_is_moe (s, 3));
  g_assert_true (model_spec_layer_is_moe (s, 60));
  ModelParams p;
  model_spec_params (s, &p);
  g_assert_cmpuint (p.n_dense_layers, ==, 3);
  g_assert_cmpuint (p.n_moe_layers, ==, 58);
  g_assert_cmpuint (p.attention_per_layer, ==, 187107328);
  g_assert_cmpuint (p.router_per_layer, ==, 7168 * 256 + 256);
  g_assert_cmpuint (p.mtp, ==, 11610068224);
  g_assert_cmpuint (p.mtp_active, ==, 688100608);
  const guint64 stored_mtp = p.mtp + 2ull * 129280 * 7168;
  g_assert_cmpuint (stored_mtp, ==, 13463426304);
  g_assert_cmpfloat (fabs ((double) (p.total + stored_mtp) / 1e9 - 685), <, 1);
  g_assert_cmpfloat (fabs ((double) stored_mtp / 1e9 - 14), <, 1);

  /* DeepSeek-V2 has no MTP and a softmax router without bias */
  g_autoptr (ModelSpec) v2 = model_spec_load_preset ("deepseek-v2", NULL);
  model_spec_params (v2, &p);
  g_assert_cmpuint (p.mtp, ==, 0);
  g_assert_false (v2->router_bias);
  g_assert_cmpint (v2->router_score, ==, MODEL_ROUTER_SOFTMAX);
}

/* A spec built by hand from a dense one (as validate does for published MoE rows): the
 * Llama 3 8B shapes with Mixtral's experts give Mixtral's layer but Llama's vocabulary:
 * 32 x 1,451,270,144 + 2 x 128256 x 4096 + 4096 = 47,491,321,856. model_moe_problem
 * catches what the loaders would refuse. */
static void
test_moe_copy_and_problems (void)
{
  g_autoptr (ModelSpec) dense = model_spec_load_preset ("llama3-8b", NULL);
  g_autoptr (ModelSpec) c = model_spec_copy (dense);
  g_assert_cmpint (c->ref_count, ==, 1);
  g_assert_true (c->name != dense->name);
  g_assert_null (model_moe_problem (c));
  c->n_experts = 8;
  c->moe_top_k = 2;
  c->moe_ffn = 14336;
  c->moe_layer_step = 1;
  g_assert_null (model_moe_problem (c));
  ModelParams p;
  model_spec_params (c, &p);
  g_assert_cmpuint (p.total, ==, 47491321856);
  model_spec_set_config_json (c, "{\"model_type\": \"custom\"}", "custom:moe");
  g_assert_cmpstr (c->source, ==, "custom:moe");
  g_assert_cmpstr (dense->source, ==, "preset:llama3-8b");

  static const struct { guint64 experts, top_k, ffn; const char *want; } bad[] = {
    { 8, 9, 14336, "top_k 9" },
    { 8, 0, 14336, "top_k 0" },
    { 20000, 2, 512, "above the cap" },
    { 4096, 2, 14336, "experts x moe_ffn" },
    { 0, 2, 0, "without experts" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      c->n_experts = bad[i].experts;
      c->moe_top_k = bad[i].top_k;
      c->moe_ffn = bad[i].ffn;
      g_autofree char *why = model_moe_problem (c);
      g_assert_nonnull (why);
      g_assert_nonnull (strstr (why, bad[i].want));
    }
  g_autoptr (ModelSpec) ds = model_spec_load_preset ("deepseek-v3", NULL);
  g_autoptr (ModelSpec) d2 = model_spec_copy (ds);
  g_assert_null (model_moe_problem (d2));
  d2->first_dense_layers = 62;
  g_autofree char *why = model_moe_problem (d2);
  g_assert_nonnull (strstr (why, "dense layers 62"));
  d2->first_dense_layers = 3;
  d2->v_head_dim = 0;
  g_autofree char *why2 = model_moe_problem (d2);
  g_assert_nonnull (strstr (why2, "MLA head dims"));
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

/* The rotated share of a head outside Qwen3-Next. GPT-NeoX turns rotary_pct of each head
 * (GPTNeoXConfig default 0.25; GPTNeoXAttention's rotary_ndims = head_size x rotary_pct):
 * GPT-NeoX-20B's head is 6144 / 64 = 96 wide, 24 of it rotated. Phi-3 / Phi-4 read
 * partial_rotary_factor (Phi3Config default 1.0): Phi-4-mini's 0.75 of 3072 / 24 = 128 is
 * 96; Phi-3-mini states none, the whole 96-wide head (3072 / 32). Both read the whole head
 * before, so the rotary op of NeoX counted 4 times its elements. A share outside (0, 1]
 * is refused by name. */
static void
test_rotary_share (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ModelSpec) neox = model_spec_load_preset ("gpt-neox-20b", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (neox->head_dim, ==, 96);
  g_assert_cmpuint (model_spec_rotary_dim (neox), ==, 24);
  g_autoptr (ModelSpec) phi3 = model_spec_load_preset ("phi3-mini", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (model_spec_rotary_dim (phi3), ==, 96);
  static const char phi4_mini[] =
    "{\"model_type\": \"phi3\", \"hidden_size\": 3072, \"intermediate_size\": 8192,"
    " \"num_hidden_layers\": 32, \"num_attention_heads\": 24, \"num_key_value_heads\": 8,"
    " \"vocab_size\": 200064, \"partial_rotary_factor\": 0.75, \"tie_word_embeddings\": true}";
  g_autoptr (ModelSpec) p4 = model_spec_new_from_data (phi4_mini, -1, "phi4-mini.json", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (p4->head_dim, ==, 128);
  g_assert_cmpuint (model_spec_rotary_dim (p4), ==, 96);
  static const char neox_bad[] =
    "{\"model_type\": \"gpt_neox\", \"hidden_size\": 1024, \"intermediate_size\": 4096,"
    " \"num_hidden_layers\": 2, \"num_attention_heads\": 16, \"vocab_size\": 50304,"
    " \"rotary_pct\": 1.5}";
  g_autoptr (ModelSpec) bad = model_spec_new_from_data (neox_bad, -1, "neox.json", &error);
  g_assert_null (bad);
  g_assert_nonnull (strstr (error->message, "field 'rotary_pct' is 1.5, must be in (0, 1]"));
}

/* A DeepSeek config whose every layer is dense (first_k_dense_replace = num_hidden_layers,
 * no MTP module) has no routed experts anywhere: read as a dense model, with a warning.
 * It was a MoE of 0 MoE layers, whose --ep was accepted and changed nothing. Its
 * parameters are the dense ones either way, by hand: per layer the SwiGLU MLP 3 x 256 x
 * 1024 = 786,432. With one layer left to the experts it stays a MoE. */
static void
test_deepseek_all_dense (void)
{
  const char *base = "{\"model_type\": \"deepseek_v3\", \"hidden_size\": 256, "
    "\"intermediate_size\": 1024, \"moe_intermediate_size\": 128, \"num_hidden_layers\": 4, "
    "\"num_attention_heads\": 8, \"num_key_value_heads\": 8, \"vocab_size\": 1000, "
    "\"max_position_embeddings\": 1024, \"n_routed_experts\": 8, \"n_shared_experts\": 1, "
    "\"num_experts_per_tok\": 2, \"moe_layer_freq\": 1, \"q_lora_rank\": 64, "
    "\"kv_lora_rank\": 32, \"qk_rope_head_dim\": 16, \"qk_nope_head_dim\": 32, "
    "\"v_head_dim\": 32, \"tie_word_embeddings\": false, \"first_k_dense_replace\": %d}";
  g_autoptr (GError) error = NULL;
  g_autofree char *all = g_strdup_printf (base, 4);
  g_autoptr (ModelSpec) d = model_spec_new_from_data (all, -1, "ds-all-dense.json", &error);
  g_assert_no_error (error);
  g_assert_false (model_spec_is_moe (d));
  g_assert_cmpuint (model_spec_n_moe_layers (d), ==, 0);
  g_assert_nonnull (d->config_warning);
  g_assert_nonnull (strstr (d->config_warning, "no layer has routed experts (4 of 4 layers "
                            "dense): read as a dense model"));
  ModelParams pd;
  model_spec_params (d, &pd);
  g_assert_cmpuint (pd.mlp_per_layer, ==, 3 * 256 * 1024);
  g_autofree char *three = g_strdup_printf (base, 3);
  g_autoptr (ModelSpec) m = model_spec_new_from_data (three, -1, "ds-three-dense.json", &error);
  g_assert_no_error (error);
  g_assert_true (model_spec_is_moe (m));
  g_assert_cmpuint (model_spec_n_moe_layers (m), ==, 1);
  g_assert_null (m->config_warning);
  /* the field absent in a config of 2 layers: the class's default, 3, is capped at the
   * layers (transformers builds every layer dense), not refused as "field
   * 'first_k_dense_replace' (3) exceeds 'num_hidden_layers'" the file never gave */
  g_autofree char *two = g_strdup_printf (base, 3);
  char *cut = strstr (two, ", \"first_k_dense_replace\"");
  g_assert_nonnull (cut);
  strcpy (cut, "}");
  char *layers = strstr (two, "\"num_hidden_layers\": 4");
  g_assert_nonnull (layers);
  layers[strlen ("\"num_hidden_layers\": ")] = '2';
  g_autoptr (ModelSpec) t = model_spec_new_from_data (two, -1, "ds-two.json", &error);
  g_assert_no_error (error);
  g_assert_false (model_spec_is_moe (t));
  g_assert_nonnull (strstr (t->config_warning, "(2 of 2 layers dense)"));
  /* a Qwen MoE whose decoder_sparse_step (5) puts experts on no layer of 4 (layers 4, 9,
   * ... by (i + 1) % step == 0): every layer dense, and the warning counts them (it gave
   * the DeepSeek field, "0 of 4", for a Qwen config) */
  const char *qwen = "{\"model_type\": \"qwen2_moe\", \"hidden_size\": 256, "
    "\"intermediate_size\": 1024, \"moe_intermediate_size\": 128, \"num_hidden_layers\": 4, "
    "\"num_attention_heads\": 8, \"num_key_value_heads\": 8, \"vocab_size\": 1000, "
    "\"max_position_embeddings\": 1024, \"num_experts\": 8, \"num_experts_per_tok\": 2, "
    "\"decoder_sparse_step\": 5, \"shared_expert_intermediate_size\": 512, "
    "\"tie_word_embeddings\": false}";
  g_autoptr (ModelSpec) q = model_spec_new_from_data (qwen, -1, "qwen-sparse.json", &error);
  g_assert_no_error (error);
  g_assert_false (model_spec_is_moe (q));
  g_assert_nonnull (q->config_warning);
  g_assert_nonnull (strstr (q->config_warning, "(4 of 4 layers dense)"));
}

/* A preset's config.json with the fields `drop` left out and those in `nulls` written as
 * null (NULL-terminated lists, either may be NULL), loaded as a user's file would be. */
static ModelSpec *
preset_edited (const char *preset, const char *const *drop, const char *const *nulls,
               GError **error)
{
  g_autoptr (ModelSpec) base = model_spec_load_preset (preset, NULL);
  g_assert_nonnull (base);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, base->config_json, -1, NULL));
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  for (guint i = 0; drop != NULL && drop[i] != NULL; i++)
    {
      g_assert_true (json_object_has_member (o, drop[i]));
      json_object_remove_member (o, drop[i]);
    }
  for (guint i = 0; nulls != NULL && nulls[i] != NULL; i++)
    json_object_set_null_member (o, nulls[i]);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, json_parser_get_root (parser));
  g_autofree char *text = json_generator_to_data (gen, NULL);
  g_autofree char *name = g_strdup_printf ("%s-edited.json", preset);
  return model_spec_new_from_data (text, -1, name, error);
}

static guint64
total_params (const ModelSpec *s)
{
  ModelParams p;
  model_spec_params (s, &p);
  return p.total;
}

/* A config that leaves out a field takes its config class's default, not LlamaConfig's
 * for every family (README: "as transformers does"). */
static void
test_family_defaults (void)
{
  g_autoptr (GError) error = NULL;

  /* MistralConfig: num_key_value_heads 8, max_position_embeddings 4096 * 32 = 131072,
   * sliding_window 4096. Mistral-7B-v0.1 without the three is the whole file's model:
   * layer = 2*4096^2 (q, o) + 2*4096*1024 (k, v: 8 KV heads of 128) + 3*4096*14336
   * + 2*4096 = 218,112,000, x32 = 6,979,584,000; embeddings 2*32000*4096 = 262,144,000;
   * final 4,096; total 7,241,732,096 (read with 32 KV heads it was 8,047,038,464). */
  static const char *const mistral_drop[] = { "num_key_value_heads",
                                              "max_position_embeddings", "sliding_window",
                                              NULL };
  g_autoptr (ModelSpec) m = preset_edited ("mistral-7b", mistral_drop, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (m->n_kv_heads, ==, 8);
  g_assert_cmpuint (m->max_positions, ==, 131072);
  g_assert_cmpuint (m->sliding_window, ==, 4096);
  g_assert_cmpuint (m->n_sliding_layers, ==, 32);
  g_assert_cmpuint (total_params (m), ==, 7241732096);
  /* written as null: MistralConfig maps a None num_key_value_heads to the heads, and a
   * null sliding_window is full attention (Mistral-7B-v0.2 and NeMo write it so):
   * layer = 4*4096^2 + 3*4096*14336 + 2*4096 = 243,277,824, x32 = 7,784,890,368
   * + 262,144,000 + 4,096 = 8,047,038,464 */
  static const char *const mistral_null[] = { "num_key_value_heads", "sliding_window", NULL };
  g_autoptr (ModelSpec) mn = preset_edited ("mistral-7b", NULL, mistral_null, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (mn->n_kv_heads, ==, 32);
  g_assert_cmpuint (mn->sliding_window, ==, 0);
  g_assert_cmpuint (mn->n_sliding_layers, ==, 0);
  g_assert_cmpuint (total_params (mn), ==, 8047038464);
  /* the default 8 is not checked as if the file had written it: a 4-head Mistral
   * without the field is refused, saying where the 8 came from */
  static const char small[] =
    "{\"model_type\": \"mistral\", \"hidden_size\": 256, \"intermediate_size\": 512,"
    " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 1000}";
  g_autoptr (ModelSpec) bad = model_spec_new_from_data (small, -1, "small-mistral.json",
                                                        &error);
  g_assert_null (bad);
  g_assert_error (error, MODEL_ERROR, MODEL_ERROR_INVALID_FIELD);
  g_assert_nonnull (strstr (error->message, "field 'num_key_value_heads' (8, the config "
                            "class's default where the file leaves it out) exceeds "
                            "'num_attention_heads' (4)"));
  g_clear_error (&error);

  /* MixtralConfig: num_key_value_heads 8, max_position_embeddings 131072, sliding_window
   * None. Mixtral-8x7B without the three: layer = attention 2*4096^2 + 2*4096*1024 =
   * 41,943,040 + 8 experts of 3*4096*14336 = 176,160,768 + router 4096*8 = 32,768 +
   * norms 8,192 = 1,451,270,144, x32 = 46,440,644,608; embeddings 262,144,000; final
   * 4,096; total 46,702,792,704 (with 32 KV heads: 47,508,099,072). */
  g_autoptr (ModelSpec) x = preset_edited ("mixtral-8x7b", mistral_drop, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (x->n_kv_heads, ==, 8);
  g_assert_cmpuint (x->max_positions, ==, 131072);
  g_assert_cmpuint (x->sliding_window, ==, 0);
  g_assert_cmpuint (x->n_sliding_layers, ==, 0);
  g_assert_cmpuint (total_params (x), ==, 46702792704);

  /* DeepseekV3Config: n_shared_experts 1, first_k_dense_replace 3, max_position_embeddings
   * 4096. DeepSeek-V3 without them is the preset's model (test_params_presets):
   * 3*583,483,392 + 58*11,507,286,272 + 2*129280*7168 + 7168 = 671,026,419,200 (read
   * with no shared expert and no dense layer it was 701,111,376,128). */
  static const char *const ds_drop[] = { "n_shared_experts", "first_k_dense_replace",
                                         "max_position_embeddings", NULL };
  g_autoptr (ModelSpec) d3 = preset_edited ("deepseek-v3", ds_drop, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (d3->n_shared_experts, ==, 1);
  g_assert_cmpuint (d3->shared_expert_ffn, ==, 2048);
  g_assert_cmpuint (d3->first_dense_layers, ==, 3);
  g_assert_cmpuint (d3->max_positions, ==, 4096);
  g_assert_cmpuint (total_params (d3), ==, 671026419200);
  /* transformers' DeepseekV3 router is the sigmoid with the e_score_correction_bias, and
   * norm_topk_prob defaults to True: a V3 file without scoring_func, topk_method and
   * norm_topk_prob is the preset's router (it read softmax without the bias, 58 x 256 =
   * 14,848 parameters short) */
  static const char *const router_drop[] = { "scoring_func", "topk_method", "norm_topk_prob",
                                             NULL };
  g_autoptr (ModelSpec) d3r = preset_edited ("deepseek-v3", router_drop, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (d3r->router_score, ==, MODEL_ROUTER_SIGMOID);
  g_assert_true (d3r->router_bias);
  g_assert_true (d3r->router_norm_topk);
  g_assert_cmpuint (total_params (d3r), ==, 671026419200);
  /* a null n_shared_experts is none (DeepSeek's modeling code: shared experts only when
   * it is not None): each of the 58 MoE layers loses one 3*7168*2048 = 44,040,192,
   * 671,026,419,200 - 58*44,040,192 = 668,472,088,064 */
  static const char *const shared_null[] = { "n_shared_experts", NULL };
  g_autoptr (ModelSpec) d3n = preset_edited ("deepseek-v3", NULL, shared_null, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (d3n->n_shared_experts, ==, 0);
  g_assert_cmpuint (total_params (d3n), ==, 668472088064);

  /* DeepseekV2Config: n_shared_experts 2, first_k_dense_replace 0, max_position_embeddings
   * 2048. DeepSeek-V2 without n_shared_experts (its 2) is the preset's 235,741,434,880;
   * without first_k_dense_replace too its one dense layer (attention 149,227,520 + dense
   * MLP 3*5120*12288 = 188,743,680 + norms 10,240) becomes a MoE layer of 3,972,116,480:
   * 235,741,434,880 - 188,743,680 + (3,972,116,480 - 149,227,520 - 10,240) =
   * 239,375,569,920, of 2048 positions. */
  static const char *const v2_shared[] = { "n_shared_experts", NULL };
  g_autoptr (ModelSpec) d2 = preset_edited ("deepseek-v2", v2_shared, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (d2->n_shared_experts, ==, 2);
  g_assert_cmpuint (d2->first_dense_layers, ==, 1);
  g_assert_cmpuint (total_params (d2), ==, 235741434880);
  g_autoptr (ModelSpec) d2b = preset_edited ("deepseek-v2", ds_drop, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (d2b->n_shared_experts, ==, 2);
  g_assert_cmpuint (d2b->first_dense_layers, ==, 0);
  g_assert_cmpuint (d2b->max_positions, ==, 2048);
  g_assert_cmpuint (total_params (d2b), ==, 239375569920);

  /* the other families keep LlamaConfig's rule: Llama 2 7B without num_key_value_heads
   * and max_position_embeddings is its 32 heads (the preset's 6,738,415,616) and 2048 */
  static const char *const llama_drop[] = { "num_key_value_heads", "max_position_embeddings",
                                            NULL };
  g_autoptr (ModelSpec) l = preset_edited ("llama2-7b", llama_drop, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (l->n_kv_heads, ==, 32);
  g_assert_cmpuint (l->max_positions, ==, 2048);
  g_assert_cmpuint (total_params (l), ==, 6738415616);
}

/* The Qwen, Phi-3, Gemma 2, StarCoder2 and GPT-NeoX config classes' own defaults
 * (transformers configuration_<family>.py), where a file leaves a field out. */
static void
test_family_defaults_more (void)
{
  g_autoptr (GError) error = NULL;

  /* Qwen3Config: head_dim 128, max_position_embeddings 32768. A Qwen3-32B-shaped file
   * without either: layer = q 5120*8192 + k, v 2*5120*1024 + o 8192*5120 = 94,371,840
   * + MLP 3*5120*25600 = 393,216,000 + norms 2*5120 + q/k norms 2*128 = 487,598,336,
   * x64 = 31,206,293,504; embeddings 2*151936*5120 = 1,555,824,640; final 5,120; total
   * 32,762,123,264 (with h / a = 80 it read 30,497,192,960) */
  static const char q32[] =
    "{\"model_type\": \"qwen3\", \"hidden_size\": 5120, \"intermediate_size\": 25600,"
    " \"num_hidden_layers\": 64, \"num_attention_heads\": 64, \"num_key_value_heads\": 8,"
    " \"vocab_size\": 151936}";
  g_autoptr (ModelSpec) q3 = model_spec_new_from_data (q32, -1, "qwen3-32b.json", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (q3->head_dim, ==, 128);
  g_assert_cmpuint (q3->max_positions, ==, 32768);
  g_assert_cmpuint (q3->sliding_window, ==, 0);
  g_assert_cmpuint (total_params (q3), ==, 32762123264);
  /* Qwen3's window: use_sliding_window with max_window_layers 28 of 36 layers is a
   * 4096-token window (the class default) on layers 28..35, 8 of them */
  static const char q3sw[] =
    "{\"model_type\": \"qwen3\", \"hidden_size\": 4096, \"intermediate_size\": 12288,"
    " \"num_hidden_layers\": 36, \"num_attention_heads\": 32, \"num_key_value_heads\": 8,"
    " \"vocab_size\": 151936, \"use_sliding_window\": true, \"max_window_layers\": 28}";
  g_autoptr (ModelSpec) q3w = model_spec_new_from_data (q3sw, -1, "qwen3-sw.json", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (q3w->sliding_window, ==, 4096);
  g_assert_cmpuint (q3w->n_sliding_layers, ==, 8);

  /* Qwen2Config: num_key_value_heads 32 where absent, so Qwen2-7B (28 heads) without it
   * is refused as transformers cannot build it (28 // 32 groups), saying where the 32
   * came from; without max_position_embeddings it is 32768 */
  static const char *const kv_drop[] = { "num_key_value_heads", NULL };
  g_autoptr (ModelSpec) q2 = preset_edited ("qwen2-7b", kv_drop, NULL, &error);
  g_assert_null (q2);
  g_assert_error (error, MODEL_ERROR, MODEL_ERROR_INVALID_FIELD);
  g_assert_nonnull (strstr (error->message, "field 'num_key_value_heads' (32, the config "
                            "class's default where the file leaves it out) exceeds "
                            "'num_attention_heads' (28)"));
  g_clear_error (&error);
  static const char *const pos_drop[] = { "max_position_embeddings", NULL };
  g_autoptr (ModelSpec) q2p = preset_edited ("qwen2-7b", pos_drop, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (q2p->max_positions, ==, 32768);
  /* Qwen2's window: use_sliding_window without sliding_window is the class's 4096, on
   * the layers from max_window_layers (20) on: 8 of 28; a null sliding_window is none */
  static const char q2sw[] =
    "{\"model_type\": \"qwen2\", \"hidden_size\": 3584, \"intermediate_size\": 18944,"
    " \"num_hidden_layers\": 28, \"num_attention_heads\": 28, \"num_key_value_heads\": 4,"
    " \"vocab_size\": 152064, \"use_sliding_window\": true, \"max_window_layers\": 20%s}";
  g_autofree char *q2a = g_strdup_printf (q2sw, "");
  g_autoptr (ModelSpec) q2w = model_spec_new_from_data (q2a, -1, "qwen2-sw.json", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (q2w->sliding_window, ==, 4096);
  g_assert_cmpuint (q2w->n_sliding_layers, ==, 8);
  g_autofree char *q2b = g_strdup_printf (q2sw, ", \"sliding_window\": null");
  g_autoptr (ModelSpec) q2n = model_spec_new_from_data (q2b, -1, "qwen2-sw0.json", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (q2n->sliding_window, ==, 0);
  g_assert_cmpuint (q2n->n_sliding_layers, ==, 0);

  /* Qwen3MoeConfig: num_key_value_heads 4 where absent (it read the 32 heads: 31.24 B
   * parameters); Qwen3-30B-A3B without it is the preset's 30,532,122,624 */
  g_autoptr (ModelSpec) q3m = preset_edited ("qwen3-30b-a3b", kv_drop, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (q3m->n_kv_heads, ==, 4);
  g_assert_cmpuint (total_params (q3m), ==, 30532122624);
  /* Qwen2MoeConfig: num_key_value_heads 16 (Qwen1.5-MoE-A2.7B's: the preset's total), and
   * qkv_bias (default true) read: false drops q, k and v's biases, 3 x 16 x 128 = 6,144 a
   * layer, 24 x 6,144 = 147,456 */
  g_autoptr (ModelSpec) q2m = preset_edited ("qwen1.5-moe-a2.7b", kv_drop, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (q2m->n_kv_heads, ==, 16);
  g_autoptr (ModelSpec) q2m_ref = model_spec_load_preset ("qwen1.5-moe-a2.7b", NULL);
  g_assert_cmpuint (total_params (q2m), ==, total_params (q2m_ref));
  g_autofree char *nobias = g_strdup (q2m_ref->config_json);
  char *brace = strrchr (nobias, '}');
  g_assert_nonnull (brace);
  *brace = '\0';
  g_autofree char *nobias_json = g_strconcat (nobias, ", \"qkv_bias\": false}", NULL);
  g_autoptr (ModelSpec) q2mb = model_spec_new_from_data (nobias_json, -1, "q15-nobias.json",
                                                         &error);
  g_assert_no_error (error);
  g_assert_false (q2mb->attn_qkv_bias);
  g_assert_cmpuint (total_params (q2m_ref) - total_params (q2mb), ==, 147456);

  /* Phi3Config: max_position_embeddings 4096 */
  g_autoptr (ModelSpec) ph = preset_edited ("phi3-mini", pos_drop, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ph->max_positions, ==, 4096);

  /* Gemma2Config: num_key_value_heads 4 (Gemma 2 2B's: the preset's 2,614,341,888; read
   * as the 8 heads it was 2,737,025,280) */
  g_autoptr (ModelSpec) g2 = preset_edited ("gemma2-2b", kv_drop, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g2->n_kv_heads, ==, 4);
  g_assert_cmpuint (total_params (g2), ==, 2614341888);

  /* Starcoder2Config: num_key_value_heads 2. The class's own sizes (StarCoder2-3B's)
   * without it: layer = q and o 2*(3072^2 + 3072) = 18,880,512 + k, v 2*(3072*256 + 256)
   * = 1,573,376 + c_fc 3072*12288 + 12288 + c_proj 12288*3072 + 3072 = 75,512,832 + two
   * LayerNorms 4*3072 = 95,979,008, x30 = 2,879,370,240; tied embeddings 49152*3072 =
   * 150,994,944; final LayerNorm 6,144; total 3,030,371,328 (3,549,585,408 with 24) */
  static const char sc2[] =
    "{\"model_type\": \"starcoder2\", \"hidden_size\": 3072, \"intermediate_size\": 12288,"
    " \"num_hidden_layers\": 30, \"num_attention_heads\": 24, \"vocab_size\": 49152}";
  g_autoptr (ModelSpec) sc = model_spec_new_from_data (sc2, -1, "starcoder2.json", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sc->n_kv_heads, ==, 2);
  g_assert_cmpuint (total_params (sc), ==, 3030371328);

  /* GPT-NeoX as newer transformers save it: rotary_pct moved to rope_parameters'
   * partial_rotary_factor (it read the class's 0.25 under that name) */
  static const char neox[] =
    "{\"model_type\": \"gpt_neox\", \"hidden_size\": 768, \"intermediate_size\": 3072,"
    " \"num_hidden_layers\": 12, \"num_attention_heads\": 12, \"vocab_size\": 50304,"
    " \"rope_parameters\": {\"rope_type\": \"default\", \"rope_theta\": 10000,"
    " \"partial_rotary_factor\": 1.0}}";
  g_autoptr (ModelSpec) nx = model_spec_new_from_data (neox, -1, "neox.json", &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (nx->rotary_fraction, ==, 1.0);
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
  g_test_add_func ("/models/load/families-by-alias", test_load_families_by_alias);
  g_test_add_func ("/models/presets/all-load", test_presets_load);
  g_test_add_func ("/models/presets/lookup", test_presets_lookup);
  g_test_add_func ("/models/presets/llama3-fields", test_presets_llama3_fields);
  g_test_add_func ("/models/params/llama3", test_params_llama3);
  g_test_add_func ("/models/params/gpt3-175b", test_params_gpt3);
  g_test_add_func ("/models/params/presets", test_params_presets);
  g_test_add_func ("/models/params/mixtral", test_params_mixtral);
  g_test_add_func ("/models/params/moe-layer-pattern", test_moe_layer_pattern);
  g_test_add_func ("/models/params/families", test_params_families);
  g_test_add_func ("/models/load/family-defaults-more", test_family_defaults_more);
  g_test_add_func ("/models/params/qwen3-next", test_params_qwen3_next);
  g_test_add_func ("/models/params/nemotron-h", test_params_nemotron_h);
  g_test_add_func ("/models/load/nemotron-h-errors", test_nemotron_h_errors);
  g_test_add_func ("/models/params/rotary-share", test_rotary_share);
  g_test_add_func ("/models/params/deepseek-v3", test_params_deepseek_v3);
  g_test_add_func ("/models/spec/moe-copy-problems", test_moe_copy_and_problems);
  g_test_add_func ("/models/spec/custom", test_custom);
  g_test_add_func ("/models/spec/deepseek-all-dense", test_deepseek_all_dense);
  g_test_add_func ("/models/spec/refcount", test_refcount);
  g_test_add_func ("/models/load/family-defaults", test_family_defaults);
  return g_test_run ();
}
