/* cli/cmd-glossary.c - `tandem show glossary [TERM] [--json]`: every term and unit the
 * outputs use, defined once, each with where the definition comes from. */
#include "cli/cli.h"
#include "cli/cli-table.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  const char *term;
  const char *where;       /* the outputs that print it */
  const char *meaning;
  const char *source;
  const char *aliases;     /* other names the outputs print it under, '|'-separated; NULL: none */
} GlossaryEntry;

static const GlossaryEntry glossary[] = {
  { "step time", "predict, run, search",
    "wall time of one optimizer step: every micro-batch's forward and backward on every "
    "pipeline stage, the gradient reduction and the optimizer update",
    "tandem's simulator (DESIGN.md section 4); measured by tandem run" },
  { "tokens/s", "predict, run",
    "global batch x sequence length / step time, for the whole cluster", "definition" },
  { "MFU", "predict, search, report, validate",
    "model FLOPs utilization: model FLOPs per step (one FLOP convention, named on the line) "
    "/ (step time x GPUs x peak)",
    "Chowdhery et al. 2022 (PaLM), Appendix B; conventions: tandem show conventions" },
  { "HFU", "predict, search, report",
    "hardware FLOPs utilization: the FLOPs the GPUs execute (causal attention as "
    "FlashAttention runs it, its backward's recompute of the scores and recomputed forwards "
    "included) / (step time x GPUs x peak); "
    "it has no convention, so it can be below a non-causal MFU",
    "Chowdhery et al. 2022 (PaLM), Appendix B; Korthikanti et al. 2022" },
  { "FLOP convention", "predict --flops, show conventions",
    "which FLOPs count as model FLOPs: megatron96, megatron72, mcore, causal or palm",
    "tandem show conventions (each with its paper or code)" },
  { "peak", "predict",
    "the device's dense FLOP/s from its datasheet (no sparsity) in the plan's GEMM "
    "precision: the tensor-core BF16 rate, FP8 / FP4 for plans in those, FP16, TF32 or "
    "BF16 for fp32 plans by --fp32-matmul-precision, and the FP32 rate (no tensor cores) at "
    "its default, highest (predict prints which peak)",
    "tandem show cluster NAME (each device cites its datasheet)" },
  { "model TFLOP/s per GPU", "predict",
    "model FLOPs per step / (step time x GPUs), in 10^12 FLOP/s", "definition" },
  { "pipeline bubble", "predict, search, run",
    "mean fraction of the step a pipeline stage's compute stream idles; 1F1B and GPipe "
    "ideal: (pp-1)/(m+pp-1) for m micro-batches, interleaved: (pp-1)/(vpp m+pp-1)",
    "Narayanan et al. SC'21, section 2.2",
    "bubble" },
  { "compute per stage", "predict",
    "busy time of a stage's compute stream in one step (mean over stages)", "simulator" },
  { "busy", "predict (communication per stage)",
    "seconds a communication stream of one stage is transferring in one step, whether or "
    "not compute runs at the same time", "simulator" },
  { "exposed", "predict, report, runs",
    "the part of the busy communication time during which the stage's compute stream is "
    "idle: what communication adds to the step", "simulator; measured the same way by run",
    "exp" },
  { "overlap", "predict",
    "hidden / total communication: 1 - exposed / busy, over all kinds", "simulator" },
  { "tp", "plan flags, communication kinds",
    "tensor parallelism: each layer's matrices split over tp GPUs (all-reduce or, with "
    "sequence parallelism, all-gather + reduce-scatter per layer)",
    "Shoeybi et al. 2019 (Megatron-LM)" },
  { "cp", "plan flags, communication kinds",
    "context parallelism: the sequence split over cp GPUs; K/V exchanged in attention",
    "Megatron-Core context parallelism; Liu et al. 2023 (ring attention)" },
  { "ep", "plan flags, communication kinds",
    "expert parallelism: the experts of a mixture-of-experts layer split over ep GPUs "
    "(token all-to-all); 0 s for a dense model", "Lepikhin et al. 2020 (GShard)" },
  { "pp", "plan flags, communication kinds",
    "pipeline parallelism: the layers split into pp stages that pass activations "
    "(send/recv)", "Huang et al. 2019 (GPipe); Narayanan et al. SC'21" },
  { "vpp", "plan flags",
    "virtual pipeline stages: model chunks per pipeline rank (interleaved 1F1B)",
    "Narayanan et al. SC'21, section 2.2" },
  { "dp", "plan flags, communication kinds",
    "data parallelism: world / (tp x cp x pp) replicas; gradients reduced across them",
    "definition (Megatron-LM derives it the same way)" },
  { "micro-batch", "plan flags (--mbs)",
    "sequences one data-parallel rank runs through the pipeline at a time",
    "Megatron-LM --micro-batch-size",
    "mbs" },
  { "micro-batches per step", "plan show, warnings",
    "m = global batch / (micro-batch x dp): gradient accumulation steps",
    "Megatron-LM (num_microbatches)" },
  { "in-flight", "memory",
    "micro-batches (chunk-micro-batches when interleaved) whose activations a stage holds at "
    "its peak: 1F1B holds pp - stage, GPipe all m",
    "Narayanan et al. SC'21; Megatron-Core schedules.py warm-up counts" },
  { "params", "memory",
    "model weights held for compute on one GPU, after tp/pp split and ZeRO-3/FSDP sharding",
    "Rajbhandari et al. 2020 (ZeRO), section 3.1" },
  { "grads", "memory",
    "gradient buffers on one GPU, after ZeRO-2/3 sharding", "Rajbhandari et al. 2020" },
  { "optimizer", "memory",
    "Adam m and v plus fp32 master weights (K = 12 bytes per parameter in mixed precision), "
    "after ZeRO-1 sharding", "Rajbhandari et al. 2020, section 3.1" },
  { "activations", "memory",
    "tensors stored for the backward pass of every in-flight micro-batch, after recompute",
    "Korthikanti et al. 2022, section 4.1" },
  { "comm_buffers", "memory",
    "gathered ZeRO-3/FSDP units, gradient buckets, pipeline send/recv and the sequence-"
    "parallel all-gather workspace", "tandem plan/memory.c (each buffer cited there)" },
  { "reserve", "memory",
    "allowance for allocator fragmentation (5% of the rest) plus 1.5 GiB for the CUDA "
    "context, NCCL buffers and library workspaces",
    "pytorch/pytorch#35901; NVIDIA/nccl#1685 (1.06 GB per H100); tandem plan/memory.c" },
  { "OOM", "predict, memory, search",
    "out of memory: a stage's total exceeds the device's HBM; exit status 3",
    "docs/contracts.md" },
  { "recompute", "plan flags, memory",
    "activation recomputation: selective recomputes the attention core, full whole layers, "
    "trading FLOPs (HFU) for memory", "Korthikanti et al. 2022" },
  { "ZeRO / sharding", "plan flags, memory",
    "zero1 shards optimizer states over dp, zero2 also gradients, zero3 / fsdp also "
    "parameters; hsdp:K shards within groups of K and replicates across them",
    "Rajbhandari et al. 2020; Zhao et al. 2023 (PyTorch FSDP)",
    "ZeRO|sharding|zero1|zero2|zero3|fsdp|hsdp" },
  { "sequence parallel", "plan flags",
    "norms and dropout split along the sequence over the tp group",
    "Korthikanti et al. 2022",
    "sp" },
  { "bw/dir/device", "show cluster",
    "bandwidth per direction per device at a level of the network, bytes/s",
    "each cluster preset cites its source" },
  { "algbw", "calibrate, show cluster",
    "algorithm bandwidth: bytes / time of a collective", "nccl-tests doc/PERFORMANCE.md" },
  { "busbw", "calibrate, show cluster",
    "bus bandwidth: algbw x the collective's factor (all-reduce 2(n-1)/n, all-gather and "
    "reduce-scatter (n-1)/n), comparable across group sizes", "nccl-tests doc/PERFORMANCE.md" },
  { "oversub", "show cluster",
    "oversubscription 1:k: a level's uplinks carry 1/k of what its devices can send",
    "each cluster preset cites its source" },
  { "spread", "run, calibrate",
    "(max - min) / median over repeated measurements of the same figure; a wide spread or "
    "a loaded machine makes the figure untrustworthy", "definition" },
  { "extrapolated", "predict, search",
    "no fitted calibration or published run behind this device and stack: the defaults "
    "were used", "tandem sim/cost (fitted knobs listed in the README)" },
  { "steady state", "predict",
    "the periodic middle of a long pipeline simulated once and extended by its period "
    "(--full-simulation turns it off)", "tandem sim/simulate.c" },
  { "etp", "plan show, plan flags (MoE)",
    "expert tensor parallelism: each expert's matrices split over etp GPUs (default: the tp "
    "degree); with ep and edp, the expert side folded onto the same ranks as tp x cp x dp",
    "Megatron-Core MoE parallel folding (--expert-tensor-parallel-size)" },
  { "edp", "plan show (MoE)",
    "expert data parallelism, derived: (tp x cp x dp) / (etp x ep) per pipeline stage; expert "
    "gradients are reduced, and expert optimizer states sharded, over it",
    "Megatron-Core MoE parallel folding (expert data-parallel group)" },
  { "active", "show model, plan show (MoE)",
    "parameters one token passes through: a mixture of experts' routed experts that the token "
    "does not visit left out", "definition (as in the DeepSeek-V3 report: 37B of 671B)" },
  { "err_%", "validate, run, report",
    "(predicted - measured) / measured x 100 for one row or term: negative means the "
    "prediction is smaller (a step predicted faster) than measured", "definition" },
  { "MAPE", "validate",
    "mean absolute percentage error: the mean of |err_%| over the predicted rows",
    "definition" },
  { "speed-up", "report scaling",
    "S = T_base / T_G: the step time of the smallest size with a plan over this size's "
    "(strong scaling)", "definition (strong scaling)" },
  { "efficiency", "report scaling",
    "strong scaling: S x G_base / G; weak scaling (--weak, the batch growing with the GPUs): "
    "T_base / T_G", "definition (strong and weak scaling efficiency)" },
  { "%peak", "calibrate",
    "a measured GEMM's FLOP/s over the device's dense peak for its dtype (only when "
    "--cluster names the device)", "definition; peaks from tandem show cluster" },
  { "#wrong", "calibrate",
    "elements of a measured kernel's result that differ from a reference computation beyond "
    "the tolerance; anything but 0 means the kernel computed the wrong thing",
    "nccl-tests' #wrong column; tandem exec/calibrate*.c" },
};

/* Prints `text` wrapped at word boundaries to lines of at most `width` characters, each
 * line after `indent`. */
static void
print_wrapped (const char *indent, const char *text, gsize width)
{
  g_auto (GStrv) words = g_strsplit (text, " ", -1);
  gsize col = 0;
  for (guint i = 0; words[i]; i++)
    {
      gsize w = strlen (words[i]);
      if (col > 0 && col + 1 + w > width)
        {
          printf ("\n");
          col = 0;
        }
      printf ("%s%s", col == 0 ? indent : " ", words[i]);
      col += (col == 0 ? 0 : 1) + w;
    }
  printf ("\n");
}

static const GlossaryEntry *
glossary_find (const char *term)
{
  for (guint i = 0; i < G_N_ELEMENTS (glossary); i++)
    if (g_ascii_strcasecmp (glossary[i].term, term) == 0)
      return &glossary[i];
  for (guint i = 0; i < G_N_ELEMENTS (glossary); i++)
    if (glossary[i].aliases != NULL)
      {
        g_auto (GStrv) names = g_strsplit (glossary[i].aliases, "|", -1);
        for (guint k = 0; names[k] != NULL; k++)
          if (g_ascii_strcasecmp (names[k], term) == 0)
            return &glossary[i];
      }
  return NULL;
}

int
cli_show_glossary (const char *term, gboolean json)
{
  guint first = 0, end = G_N_ELEMENTS (glossary);
  if (term != NULL)
    {
      const GlossaryEntry *e = glossary_find (term);
      if (e == NULL)
        {
          const char *names[G_N_ELEMENTS (glossary)];
          for (guint i = 0; i < G_N_ELEMENTS (glossary); i++)
            names[i] = glossary[i].term;
          const char *near = cli_closest (term, names, G_N_ELEMENTS (names));
          if (near != NULL)
            return cli_fail (CLI_EXIT_USAGE, "no glossary entry '%s' (did you mean '%s'?)",
                             term, near);
          return cli_fail (CLI_EXIT_USAGE, "no glossary entry '%s' (hint: tandem show "
                           "glossary lists them all)", term);
        }
      first = (guint) (e - glossary), end = first + 1;
    }
  if (json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_array (b);
      for (guint i = first; i < end; i++)
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "term");
          json_builder_add_string_value (b, glossary[i].term);
          json_builder_set_member_name (b, "where");
          json_builder_add_string_value (b, glossary[i].where);
          json_builder_set_member_name (b, "meaning");
          json_builder_add_string_value (b, glossary[i].meaning);
          json_builder_set_member_name (b, "source");
          json_builder_add_string_value (b, glossary[i].source);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      cli_print_json (b);
      return CLI_EXIT_OK;
    }
  if (term == NULL)
    printf ("glossary: the terms and units tandem's outputs use "
            "(tandem show glossary TERM for one)\n");
  for (guint i = first; i < end; i++)
    {
      printf ("\n  %s  (%s)\n", glossary[i].term, glossary[i].where);
      print_wrapped ("    ", glossary[i].meaning, 84);
      g_autofree char *src = g_strconcat ("source: ", glossary[i].source, NULL);
      print_wrapped ("    ", src, 84);
    }
  return CLI_EXIT_OK;
}
