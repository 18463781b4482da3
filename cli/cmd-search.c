/* cli/cmd-search.c - `tandem search`: the fastest plans for a model, a cluster and a batch.
 *
 * The dimension flags (--tp 2,4,8, --sharding zero1,zero3, --gpus 256,512, ...) are taken
 * out of argv here, as lists; what is left (--model, --cluster, --seq-length, --gbs,
 * precision, ...) goes through the plan option group into the base plan and is repeated
 * verbatim in every printed `tandem predict` command line. The search itself is
 * sim/search.h; under mpirun each rank searches a contiguous range of the candidates and
 * rank 0 gathers, prints and stores. */
#include "results/accuracy.h"
#include "config.h"
#include "cli/cli.h"
#include "cli/cli-table.h"
#include "cli/cli-store.h"
#include "results/store.h"
#include "sim/search.h"
#include "frameworks/stack.h"
#include "util/output.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

/* ---- list options -------------------------------------------------------------------- */

typedef struct {
  const char *names[3];     /* spellings, NULL-terminated unless all three are used */
  int         kind;         /* what it is */
  gboolean    takes_value;
} SearchFlag;

enum {
  F_GPUS, F_TP, F_CP, F_PP, F_VPP, F_MBS, F_EP, F_SHARDING, F_RECOMPUTE, F_SCHEDULE, F_CP_COMM,
  F_ORDER, F_SP, F_NO_SP, F_TPO, F_NO_TPO, F_DPO, F_ALLOW_X, F_TOP, F_OBJECTIVE,
  F_HEADROOM, F_JSON, F_DB, F_NO_DB, F_TRACE_BEST, F_THREADS, F_NO_PRUNE, F_FRAMEWORK,
  F_NOTE, F_HELP, F_USE_DIST_OPT, F_FAST, F_DB_TIMEOUT, F_TIMEOUT,
};

static const SearchFlag flags[] = {
  { { "gpus", "world-size" }, F_GPUS, TRUE },
  { { "tp", "tensor-model-parallel-size" }, F_TP, TRUE },
  { { "cp", "context-parallel-size" }, F_CP, TRUE },
  { { "pp", "pipeline-model-parallel-size" }, F_PP, TRUE },
  { { "vpp", "num-virtual-stages-per-pipeline-rank" }, F_VPP, TRUE },
  { { "mbs", "micro-batch-size" }, F_MBS, TRUE },
  { { "ep", "expert-model-parallel-size" }, F_EP, TRUE },
  { { "sharding", "data-parallel-sharding-strategy" }, F_SHARDING, TRUE },
  { { "recompute", "recompute-granularity" }, F_RECOMPUTE, TRUE },
  { { "schedule", "pipeline-parallel-schedule" }, F_SCHEDULE, TRUE },
  { { "cp-comm-type" }, F_CP_COMM, TRUE },
  { { "rank-order" }, F_ORDER, TRUE },
  { { "sequence-parallel", "sp" }, F_SP, FALSE },
  { { "no-sequence-parallel" }, F_NO_SP, FALSE },
  { { "tp-comm-overlap" }, F_TPO, FALSE },
  { { "no-tp-comm-overlap" }, F_NO_TPO, FALSE },
  { { "dp-overlap" }, F_DPO, TRUE },
  { { "allow-cross-node-tp" }, F_ALLOW_X, FALSE },
  { { "top" }, F_TOP, TRUE },
  { { "objective" }, F_OBJECTIVE, TRUE },
  { { "memory-headroom" }, F_HEADROOM, TRUE },
  { { "json" }, F_JSON, FALSE },
  { { "db" }, F_DB, TRUE },
  { { "no-db" }, F_NO_DB, FALSE },
  { { "db-timeout" }, F_DB_TIMEOUT, TRUE },
  { { "trace-best" }, F_TRACE_BEST, TRUE },
  { { "threads" }, F_THREADS, TRUE },
  { { "timeout" }, F_TIMEOUT, TRUE },
  { { "no-prune" }, F_NO_PRUNE, FALSE },
  { { "framework" }, F_FRAMEWORK, TRUE },
  { { "note" }, F_NOTE, TRUE },
  { { "help", "h", "help-all" }, F_HELP, FALSE },   /* --help-all as every other command takes it */
  { { "use-distributed-optimizer" }, F_USE_DIST_OPT, FALSE },
  { { "fast" }, F_FAST, FALSE },
};

typedef struct {
  SearchSpec spec;
  gboolean   json, no_db, help;
  char      *db, *trace_best, *framework, *note;
  int        threads;
  int        db_timeout_ms;   /* --db-timeout MS: the store's busy timeout */
  double     timeout_s;       /* --timeout S: under mpirun, a peer silent this long is gone */
  char      *stack_name;      /* the --framework stack's name, for the JSON */
  char      *stack_stored;    /* what the store keeps of it (fw_stack_stored_name) */
  gboolean   extrapolated;    /* no fitted calibration behind the device and stack */
  double     perf_sigma;      /* the device's part-to-part spread (--cost perf_sigma) */
  gboolean   no_prune;
  gboolean   dist_opt;        /* --use-distributed-optimizer given */
  char      *sharding_flag;   /* the last --sharding as typed, "--sharding none,zero1" */
  gboolean   fast;         /* heuristic rules (search_spec_fast) */
  guint      narrowed_memory;  /* the levers on memory the user narrowed: NARROWED_* */
  double     earlier_wall_s;  /* --fast: the first pass's wall time, when there are two */
  PlanArgs   args;
  GString   *extra;        /* base-plan flags as typed, for the printed command lines */
} Opts;

enum { NARROWED_RECOMPUTE = 1, NARROWED_SHARDING = 2, NARROWED_MBS = 4 };

static gboolean
parse_int_list (const char *flag, const char *value, gint64 max, GArray **out, GError **error)
{
  if (*out == NULL)
    *out = g_array_new (FALSE, FALSE, sizeof (int));
  g_auto (GStrv) parts = g_strsplit (value, ",", -1);
  for (int i = 0; parts[i]; i++)
    {
      char *end = NULL;
      gint64 v = g_ascii_strtoll (g_strstrip (parts[i]), &end, 10);
      if (end == parts[i] || *end != '\0' || v < 1 || v > G_MAXINT32)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--%s '%s': expected positive integers separated by commas "
                       "(hint: --%s 2,4,8)", flag, value, flag);
          return FALSE;
        }
      /* a candidate keeps its degrees and micro-batch size in 16 bits (SearchCand,
       * sim/search-private.h: the space holds millions): --mbs 32768 wrapped to -32768
       * (every candidate "not resolved") and --mbs 65536 to 0 (a division by zero) */
      if (v > max)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--%s %" G_GINT64_FORMAT " is above %" G_GINT64_FORMAT ", the largest "
                       "degree or micro-batch size a search takes (hint: --%s 2,4,8)", flag, v,
                       max, flag);
          return FALSE;
        }
      int iv = (int) v;
      /* a value given twice (--tp 1,1,2, or --gpus 8 --gpus 8,16) is one value: else
       * every plan with it is enumerated twice and fills two places of the top */
      gboolean seen = FALSE;
      for (guint k = 0; k < (*out)->len && !seen; k++)
        seen = g_array_index (*out, int, k) == iv;
      if (!seen)
        g_array_append_val (*out, iv);
    }
  return TRUE;
}

/* name -> value of a small enum, for list options */
typedef struct { const char *name; int value; } Named;

static gboolean
parse_mask (const char *flag, const char *value, const Named *names, const char *hint,
            guint *mask, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (value, ",", -1);
  for (int i = 0; parts[i]; i++)
    {
      const char *p = g_strstrip (parts[i]);
      gboolean found = FALSE;
      for (int k = 0; names[k].name; k++)
        if (g_ascii_strcasecmp (p, names[k].name) == 0)
          {
            *mask |= 1u << names[k].value;
            found = TRUE;
          }
      if (!found)
        {
          /* the nearest of the values as the hint spells them */
          g_auto (GStrv) known = g_strsplit (hint, ",", -1);
          g_autofree char *dym = cli_did_you_mean (p, (const char *const *) known);
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--%s: unknown value '%s'%s (hint: %s)", flag, p, dym, hint);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
parse_sharding (const char *value, GArray **out, GError **error)
{
  static const Named names[] = {
    { "none", PLAN_SHARD_NONE }, { "ddp", PLAN_SHARD_NONE }, { "zero0", PLAN_SHARD_NONE },
    { "no_shard", PLAN_SHARD_NONE }, { "zero1", PLAN_SHARD_ZERO1 },
    { "optim", PLAN_SHARD_ZERO1 }, { "distributed_optimizer", PLAN_SHARD_ZERO1 },
    { "zero2", PLAN_SHARD_ZERO2 }, { "optim_grads", PLAN_SHARD_ZERO2 },
    { "shard_grad_op", PLAN_SHARD_ZERO2 }, { "zero3", PLAN_SHARD_ZERO3 },
    { "fsdp", PLAN_SHARD_ZERO3 }, { "optim_grads_params", PLAN_SHARD_ZERO3 },
    { "full_shard", PLAN_SHARD_ZERO3 }, { "hsdp", PLAN_SHARD_HSDP }, { NULL, 0 },
  };
  if (*out == NULL)
    *out = g_array_new (FALSE, FALSE, sizeof (SearchShard));
  g_auto (GStrv) parts = g_strsplit (value, ",", -1);
  for (int i = 0; parts[i]; i++)
    {
      const char *p = g_strstrip (parts[i]);
      SearchShard sh = { PLAN_SHARD_NONE, 0 };
      gboolean found = FALSE;
      if (g_ascii_strncasecmp (p, "hsdp:", 5) == 0)
        {
          char *end = NULL;
          gint64 k = g_ascii_strtoll (p + 5, &end, 10);
          if (end == p + 5 || *end || k < 2 || k > G_MAXINT16)
            {
              g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "--sharding '%s': HSDP's shard-group size K is an integer >= 2 "
                           "(hint: hsdp:8, or hsdp for every power of two)", p);
              return FALSE;
            }
          sh.kind = PLAN_SHARD_HSDP, sh.hsdp_k = (int) k, found = TRUE;
        }
      else
        for (int k = 0; names[k].name; k++)
          if (g_ascii_strcasecmp (p, names[k].name) == 0)
            sh.kind = names[k].value, found = TRUE;
      if (!found)
        {
          static const char *const known[] = { "none", "zero1", "zero2", "zero3", "fsdp",
                                               "hsdp", NULL };
          g_autofree char *dym = cli_did_you_mean (p, known);
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--sharding: unknown value '%s'%s (hint: none,zero1,zero2,zero3,fsdp,"
                       "hsdp,hsdp:K)", p, dym);
          return FALSE;
        }
      /* one entry per sharding: aliases (zero3, fsdp, full_shard) and repeats are one;
       * hsdp (every power-of-two K) holds hsdp:K for a power of two K */
      gboolean seen = FALSE;
      for (guint k = 0; k < (*out)->len && !seen; k++)
        {
          SearchShard *o = &g_array_index (*out, SearchShard, k);
          seen = o->kind == sh.kind && o->hsdp_k == sh.hsdp_k;
          if (sh.kind == PLAN_SHARD_HSDP && o->kind == PLAN_SHARD_HSDP)
            {
              if (o->hsdp_k == 0 && (sh.hsdp_k & (sh.hsdp_k - 1)) == 0)
                seen = TRUE;            /* hsdp then hsdp:K */
              else if (sh.hsdp_k == 0 && (o->hsdp_k & (o->hsdp_k - 1)) == 0)
                {
                  *o = sh;              /* hsdp:K then hsdp: hsdp holds it */
                  seen = TRUE;
                }
            }
        }
      if (!seen)
        g_array_append_val (*out, sh);
    }
  return TRUE;
}

static gboolean
take_flag (Opts *o, int kind, const char *name, const char *value, GError **error)
{
  static const Named rec[] = { { "none", PLAN_RECOMPUTE_NONE },
    { "selective", PLAN_RECOMPUTE_SELECTIVE }, { "full", PLAN_RECOMPUTE_FULL }, { NULL, 0 } };
  static const Named sched[] = { { "gpipe", PLAN_SCHED_GPIPE }, { "1f1b", PLAN_SCHED_1F1B },
    { "interleaved1f1b", PLAN_SCHED_INTERLEAVED_1F1B },
    { "interleaved", PLAN_SCHED_INTERLEAVED_1F1B }, { NULL, 0 } };
  static const Named cpc[] = { { "p2p", PLAN_CP_P2P }, { "ring", PLAN_CP_P2P },
    { "all_gather", PLAN_CP_ALLGATHER }, { "allgather", PLAN_CP_ALLGATHER },
    { "a2a", PLAN_CP_A2A }, { "ulysses", PLAN_CP_A2A }, { NULL, 0 } };
  static const Named order[] = { { SEARCH_ORDER_MEGATRON, 0 }, { "megatron", 0 },
    { SEARCH_ORDER_PP_INNER, 1 }, { NULL, 0 } };
  static const Named onoff[] = { { "off", 0 }, { "on", 1 }, { "no", 0 }, { "yes", 1 },
    { NULL, 0 } };
  SearchSpec *sp = &o->spec;
  /* An empty value (--tp "", --tp= from an unset shell variable) is no list: taken as
   * "not given" it searched the whole dimension, and --sharding "" asked for hsdp. */
  switch (kind)
    {
    case F_GPUS: case F_TP: case F_CP: case F_PP: case F_VPP: case F_EP: case F_MBS:
    case F_SHARDING: case F_RECOMPUTE: case F_SCHEDULE: case F_CP_COMM: case F_ORDER:
    case F_DPO: case F_FRAMEWORK:
      {
        g_autofree char *v = g_strstrip (g_strdup (value));
        if (*v == '\0')
          {
            g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                         "--%s '%s' is empty (hint: %s)", name, value,
                         kind == F_FRAMEWORK ? "--framework megatron-core, or leave the flag "
                                               "out for that default"
                                             : "give one or more values, comma-separated, or "
                                               "leave the flag out to search them all");
            return FALSE;
          }
        break;
      }
    case F_DB:
      if (!cli_db_path_check (value, error))
        return FALSE;
      g_free (o->db);
      o->db = g_strdup (value);
      return TRUE;
    default:
      break;
    }
  switch (kind)
    {
    case F_GPUS: return parse_int_list (name, value, G_MAXINT32, &sp->gpus, error);
    case F_TP: return parse_int_list (name, value, G_MAXINT16, &sp->tp, error);
    case F_CP: return parse_int_list (name, value, G_MAXINT16, &sp->cp, error);
    case F_PP: return parse_int_list (name, value, G_MAXINT16, &sp->pp, error);
    case F_VPP: return parse_int_list (name, value, G_MAXINT16, &sp->vpp, error);
    case F_EP: return parse_int_list (name, value, G_MAXINT16, &sp->ep, error);
    case F_MBS:
      o->narrowed_memory |= NARROWED_MBS;
      return parse_int_list (name, value, G_MAXINT16, &sp->mbs, error);
    case F_SHARDING:
      o->narrowed_memory |= NARROWED_SHARDING;
      g_free (o->sharding_flag);
      o->sharding_flag = g_strdup_printf ("--%s %s", name, value);
      return parse_sharding (value, &sp->sharding, error);
    case F_USE_DIST_OPT:
      o->narrowed_memory |= NARROWED_SHARDING;
      o->dist_opt = TRUE;
      return parse_sharding ("zero1", &sp->sharding, error);
    case F_RECOMPUTE:
      o->narrowed_memory |= NARROWED_RECOMPUTE;
      return parse_mask (name, value, rec, "none,selective,full", &sp->recompute_mask, error);
    case F_SCHEDULE:
      return parse_mask (name, value, sched, "GPipe,1F1B,Interleaved1F1B", &sp->schedule_mask,
                         error);
    case F_CP_COMM:
      return parse_mask (name, value, cpc, "p2p,all_gather,a2a", &sp->cp_comm_mask, error);
    case F_ORDER:
      return parse_mask (name, value, order, SEARCH_ORDER_MEGATRON "," SEARCH_ORDER_PP_INNER,
                         &sp->order_mask, error);
    case F_SP:
    case F_NO_SP:
    case F_TPO:
    case F_NO_TPO:
      {
        /* each pair fixes one value: both of a pair contradict each other (leaving both
         * out searches both) */
        gboolean on = kind == F_SP || kind == F_TPO;
        guint *mask = kind == F_SP || kind == F_NO_SP ? &sp->sp_mask : &sp->tp_overlap_mask;
        const char *what = kind == F_SP || kind == F_NO_SP ? "sequence-parallel"
                                                     : "tp-comm-overlap";
        if (*mask & (on ? 1u : 2u))
          {
            g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                         "--%s and --no-%s contradict each other (hint: give one to fix "
                         "it, neither to search both)", what, what);
            return FALSE;
          }
        *mask |= on ? 2u : 1u;
        return TRUE;
      }
    case F_DPO: return parse_mask (name, value, onoff, "on,off", &sp->dp_overlap_mask, error);
    case F_ALLOW_X: sp->allow_cross_node_tp = TRUE; return TRUE;
    case F_TOP:
      {
        char *end = NULL;
        gint64 k = g_ascii_strtoll (value, &end, 10);
        if (end == value || *end || k < 1 || k > 1000)
          {
            g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                         "--top '%s': an integer from 1 to 1000", value);
            return FALSE;
          }
        sp->top_k = (int) k;
        return TRUE;
      }
    case F_OBJECTIVE:
      if (!search_objective_parse (value, &sp->objective))
        {
          static const char *const objs[] = { "tokens_per_s", "step_time", "mfu",
                                               "tokens_per_gpu_hour", NULL };
          g_autofree char *dym = cli_did_you_mean (value, objs);
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--objective: unknown value '%s'%s (hint: tokens_per_s, step_time, mfu "
                       "or tokens_per_gpu_hour)", value, dym);
          return FALSE;
        }
      return TRUE;
    case F_HEADROOM:
      {
        char *end = NULL;
        double g = g_ascii_strtod (value, &end);
        /* strtod reads C99 hex floats too: "0x10" was taken as 16 GiB */
        if (end == value || *end || !isfinite (g) || g < 0 || g > 1e6
            || strpbrk (value, "xX") != NULL)
          {
            g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                         "--memory-headroom '%s': GiB to keep free, a number from 0 to "
                         "1000000", value);
            return FALSE;
          }
        sp->headroom_bytes = g * 1073741824.0;
        return TRUE;
      }
    case F_THREADS:
      {
        char *end = NULL;
        gint64 t = g_ascii_strtoll (value, &end, 10);
        if (end == value || *end || t < 1 || t > 1024)
          {
            g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                         "--threads '%s': an integer from 1 to 1024", value);
            return FALSE;
          }
        o->threads = (int) t;
        return TRUE;
      }
    case F_DB_TIMEOUT:
      {
        char *end = NULL;
        gint64 t = g_ascii_strtoll (value, &end, 10);
        if (end == value || *end || t < 0 || t > G_MAXINT32)
          {
            g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                         "--db-timeout '%s': expected milliseconds from 0 to %d", value,
                         G_MAXINT32);
            return FALSE;
          }
        o->db_timeout_ms = (int) t;
        return TRUE;
      }
    case F_TIMEOUT:
      {
        char *end = NULL;
        double t = g_ascii_strtod (value, &end);
        if (end == value || *end || !isfinite (t) || t <= 0 || t > CLI_MAX_TIMEOUT_S)
          {
            g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                         "--timeout '%s': seconds a rank may be silent under mpirun, a "
                         "number above 0 and at most %.0f (hint: --timeout 30)", value,
                         CLI_MAX_TIMEOUT_S);
            return FALSE;
          }
        o->timeout_s = t;
        return TRUE;
      }
    case F_JSON: o->json = TRUE; return TRUE;
    case F_NO_DB: o->no_db = TRUE; return TRUE;
    case F_TRACE_BEST: g_free (o->trace_best); o->trace_best = g_strdup (value); return TRUE;
    case F_NO_PRUNE: o->no_prune = TRUE; return TRUE;
    case F_FAST: o->fast = TRUE; return TRUE;
    case F_FRAMEWORK: g_free (o->framework); o->framework = g_strdup (value); return TRUE;
    case F_NOTE: g_free (o->note); o->note = g_strdup (value); return TRUE;
    case F_HELP: o->help = TRUE; return TRUE;
    default: return FALSE;
    }
}

static const SearchFlag *
find_flag (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (flags); i++)
    for (int k = 0; k < 3 && flags[i].names[k]; k++)
      if (g_str_equal (flags[i].names[k], name))
        return &flags[i];
  return NULL;
}

static const char usage_text[] =
  "usage: tandem search [--model M] [--cluster C] --gbs B [--seq-length S] [dimensions]\n"
  "                     [--top K] [--objective O] [--memory-headroom GiB] [--json]\n"
  "                     [--db F | --no-db] [--db-timeout MS] [--trace-best F] [--threads N]\n"
  "                     [--timeout S] [--note TEXT] [--no-prune]\n\n"
  "Finds the fastest plans for a model, a cluster and a global batch: every split of\n"
  "tp, cp, pp, vpp, dp, micro-batch, sharding, recompute, sequence parallelism, overlaps,\n"
  "schedule and rank order, checked for memory, bounded, simulated, ranked (exact).\n\n"
  "Dimensions (each fixes or narrows one; lists are comma-separated):\n"
  "  --gpus N,..            GPU counts to search (default: the whole cluster)\n"
  "  --tp/--cp/--pp/--vpp/--mbs N,..   degrees and micro-batch sizes\n"
  "  --ep N,..              expert-parallel degrees (MoE; default: divisors of the experts)\n"
  "  --sharding S,..        none, zero1, zero2, zero3 (fsdp), hsdp (every K), hsdp:K\n"
  "                         (MoE models: no HSDP, which does not fold with experts)\n"
  "  --recompute R,..       none, selective, full\n"
  "  --schedule S,..        GPipe, 1F1B, Interleaved1F1B\n"
  "  --cp-comm-type T,..    p2p, all_gather, a2a\n"
  "  --rank-order O,..      " SEARCH_ORDER_MEGATRON " (Megatron), " SEARCH_ORDER_PP_INNER "\n"
  "  --sequence-parallel | --no-sequence-parallel   fix SP on or off\n"
  "  --tp-comm-overlap | --no-tp-comm-overlap       fix TP-comm overlap\n"
  "  --dp-overlap on|off    DP grad-reduce + param-gather overlap\n"
  "  --allow-cross-node-tp  let tp span NVLink domains\n"
  "  --fast                 heuristic, not exact: the open dimensions follow practice\n"
  "                         (tp powers of two, mbs 1-2, SP with TP, DP overlap on,\n"
  "                         recompute only when nothing fits; README \"tandem search\")\n"
  "  --framework NAME|FILE  software stack (default megatron-core): an input, not a\n"
  "                         dimension; the space keeps the options it offers\n"
  "Objectives: tokens_per_s (default; or tokens), step_time (or step), mfu,\n"
  "tokens_per_gpu_hour (hyphens read as underscores).\n"
  "--top K: the K best plans listed, 1 to 1000 (default 5).\n"
  "--note TEXT: free text stored with the search. --no-prune: simulate every candidate\n"
  "that fits, none skipped by the bound (slower; to check the bound's pruning).\n"
  "Megatron-LM's names work as in tandem predict: --world-size, --tensor-model-parallel-size,\n"
  "--context-parallel-size, --pipeline-model-parallel-size, --micro-batch-size,\n"
  "--num-virtual-stages-per-pipeline-rank, --expert-model-parallel-size, --sp,\n"
  "--data-parallel-sharding-strategy, --recompute-granularity, --pipeline-parallel-schedule;\n"
  "--use-distributed-optimizer is --sharding zero1. -h and --help-all are --help.\n"
  "Other flags (--seq-length, --gbs, --precision, --fp8-format, ...) are plan flags, as in\n"
  "tandem predict. Exit: 0 found, 2 bad input or contradictory constraints, 3 nothing\n"
  "fits, 1 store or MPI failure. Under mpirun the ranks split the space; a rank that sends\n"
  "nothing for --timeout S (default 30) ends the job (dead, stopped or hung).\n";

/* The search's own flags as GOption entries, for the check of a value that is another
 * flag (cli_options_check_values); g_free. The names are the table's. */
static GOptionEntry *
search_entries_new (void)
{
  GArray *out = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));
  for (guint i = 0; i < G_N_ELEMENTS (flags); i++)
    for (int k = 0; k < 3 && flags[i].names[k]; k++)
      {
        const int kind = flags[i].kind;
        GOptionEntry e = { flags[i].names[k], 0, 0, G_OPTION_ARG_NONE, NULL, NULL, NULL };
        if (flags[i].takes_value)
          {
            /* a name or a file may be given as --db=--x; a list or a number may not */
            e.arg = kind == F_DB || kind == F_TRACE_BEST ? G_OPTION_ARG_FILENAME
                    : kind == F_NOTE || kind == F_FRAMEWORK ? G_OPTION_ARG_STRING
                    : G_OPTION_ARG_CALLBACK;
            e.arg_description = kind == F_DB || kind == F_TRACE_BEST ? "FILE"
                                : kind == F_NOTE ? "TEXT"
                                : kind == F_FRAMEWORK ? "NAME|FILE"
                                : kind == F_TOP ? "K"
                                : kind == F_THREADS ? "N"
                                : kind == F_TIMEOUT ? "S"
                                : kind == F_DB_TIMEOUT ? "MS"
                                : kind == F_HEADROOM ? "GiB"
                                : kind == F_OBJECTIVE ? "O"
                                : kind == F_DPO ? "on|off" : "LIST";
          }
        g_array_append_val (out, e);
      }
  return (GOptionEntry *) g_array_free (out, FALSE);
}

/* --use-distributed-optimizer with a --sharding that lists none: the optimizer states
 * sharded over DP and kept whole, both asked for (the search tried both, where predict
 * refuses the pair as contradictory: plan-args.c plan_parse_check). zero2, zero3 and hsdp
 * shard the states too and stay. */
static gboolean
sharding_agrees (const Opts *o, GError **error)
{
  if (!o->dist_opt || o->spec.sharding == NULL)
    return TRUE;
  for (guint i = 0; i < o->spec.sharding->len; i++)
    if (g_array_index (o->spec.sharding, SearchShard, i).kind == PLAN_SHARD_NONE)
      {
        g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                     "%s and --use-distributed-optimizer contradict each other: none keeps "
                     "the optimizer states whole on every DP rank, the distributed optimizer "
                     "shards them over DP, ZeRO-1 (hint: drop none from the list, or drop "
                     "--use-distributed-optimizer)", o->sharding_flag);
        return FALSE;
      }
  return TRUE;
}

/* Splits argv into search flags (consumed) and plan flags (left for the plan group). */
static gboolean
split_args (Opts *o, int argc, char **argv, GPtrArray *rest, GError **error)
{
  g_ptr_array_add (rest, g_strdup (argv[0]));
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      if (g_str_has_prefix (a, "--") || (a[0] == '-' && a[1] == 'h' && a[2] == '\0'))
        {
          const char *body = a[1] == '-' ? a + 2 : a + 1;
          g_autofree char *name = NULL;
          const char *eq = strchr (body, '=');
          const char *value = NULL;
          name = eq ? g_strndup (body, (gsize) (eq - body)) : g_strdup (body);
          const SearchFlag *f = find_flag (name);
          if (f != NULL)
            {
              if (f->takes_value)
                {
                  if (eq)
                    value = eq + 1;
                  else if (i + 1 < argc)
                    value = argv[++i];
                  else
                    {
                      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                                   "--%s needs a value", name);
                      return FALSE;
                    }
                }
              else if (eq)
                {
                  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                               "--%s takes no value", name);
                  return FALSE;
                }
              if (!take_flag (o, f->kind, name, value, error))
                return FALSE;
              continue;
            }
          /* expert TP is the search's to set (sim/search.c): a list of it ("--etp 1,2")
           * was refused as a malformed integer of the plan flag, where one value is told
           * why; a list gets that same answer */
          if (g_str_equal (name, "etp") || g_str_equal (name, "expert-tensor-parallel-size"))
            {
              const char *v = eq ? eq + 1 : i + 1 < argc ? argv[i + 1] : NULL;
              if (v != NULL && strchr (v, ',') != NULL)
                {
                  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                               "--%s %s: the search sets expert TP for each candidate, so "
                               "the flag would be ignored (hint: the search tries etp 1 and "
                               "etp = tp; drop it)", name, v);
                  return FALSE;
                }
            }
          /* a plan flag: keep it (and its value) for the plan group and the command lines */
          /* model and cluster, batch and sequence: every command line names them itself;
           * --async-tp too, where the candidate has it (search_plan_flags): it fixes the
           * TP-overlap dimension (below) */
          gboolean is_model = g_str_equal (name, "model") || g_str_equal (name, "cluster")
                              || g_str_equal (name, "gbs") || g_str_equal (name, "seq")
                              || g_str_equal (name, "global-batch-size")
                              || g_str_equal (name, "seq-length")
                              || g_str_equal (name, "async-tp");
          g_ptr_array_add (rest, g_strdup (a));
          gboolean has_value = !eq && i + 1 < argc && !g_str_has_prefix (argv[i + 1], "--");
          if (!is_model && o->extra->len)
            g_string_append_c (o->extra, ' ');
          if (!is_model)
            g_string_append (o->extra, a);
          if (has_value)
            {
              g_ptr_array_add (rest, g_strdup (argv[++i]));
              if (!is_model)
                util_append_shell_word (o->extra, argv[i]);
            }
          continue;
        }
      g_ptr_array_add (rest, g_strdup (a));
    }
  g_ptr_array_add (rest, NULL);
  return TRUE;
}

/* ---- output ---------------------------------------------------------------------------- */

/* Rewrites a prediction object to the contract's shape (docs/contracts.md): hfu one
 * number; comm_s and exposed_comm_s (top level and per stage) with tp, cp, ep, pp, dp. */
static void
comm_keys_fix (JsonObject *o, const char *member)
{
  if (!json_object_has_member (o, member))
    return;
  JsonNode *n = json_object_get_member (o, member);
  if (!JSON_NODE_HOLDS_OBJECT (n))
    return;
  JsonObject *old = json_node_get_object (n);
  JsonObject *fresh = json_object_new ();
  static const char *const keys[] = { "tp", "cp", "ep", "pp", "dp" };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    json_object_set_double_member (fresh, keys[i],
                                   json_object_has_member (old, keys[i])
                                   ? json_object_get_double_member (old, keys[i]) : 0.0);
  json_object_set_object_member (o, member, fresh);
}

static JsonNode *
prediction_node (const SimPrediction *p, int place, const char *flags_str,
                 const Opts *opts)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  sim_prediction_to_json (p, MODEL_FLOPS_PALM, b);
  JsonNode *root = json_builder_get_root (b);
  JsonObject *o = json_node_get_object (root);
  if (json_object_has_member (o, "hfu")
      && JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "hfu")))
    json_object_set_double_member (o, "hfu", p->result->hfu);
  comm_keys_fix (o, "comm_s");
  comm_keys_fix (o, "exposed_comm_s");
  if (json_object_has_member (o, "stages"))
    {
      JsonArray *st = json_object_get_array_member (o, "stages");
      for (guint i = 0; i < json_array_get_length (st); i++)
        {
          JsonObject *so = json_array_get_object_element (st, i);
          comm_keys_fix (so, "comm_s");
          comm_keys_fix (so, "exposed_comm_s");
        }
    }
  /* the members cmd-predict.c adds to the same object */
  json_object_set_string_member (o, "framework", opts->stack_name);
  json_object_set_boolean_member (o, "extrapolated", opts->extrapolated);
  /* the GPUs of the candidate's plan: rows below the first carry no layout */
  json_object_set_object_member (o, "stragglers",
                                 cli_stragglers_json (opts->perf_sigma,
                                                      p->plan.world_size > 1
                                                        ? (guint64) p->plan.world_size : 1));
  {
    ResAccuracy acc;
    res_accuracy_load (&acc);
    g_autoptr (JsonBuilder) ab = json_builder_new ();
    res_accuracy_class_json (&acc, topo_device_part (&p->cluster->device), opts->stack_name,
                             model_spec_is_moe (p->model), ab);
    json_object_set_member (o, "accuracy", json_builder_get_root (ab));
  }
  /* the rule of thumb's plan is not ranked: place null */
  if (place > 0)
    json_object_set_int_member (o, "place", place);
  else
    json_object_set_null_member (o, "place");
  json_object_set_string_member (o, "flags", flags_str);
  return root;
}

typedef struct {
  SimPrediction *pred;
  char          *flags;
  const SearchRow *row;
} Ranked;

static const char *
objective_about (SearchObjective o)
{
  switch (o)
    {
    case SEARCH_OBJ_STEP_TIME: return "step time";
    case SEARCH_OBJ_MFU: return "MFU";
    case SEARCH_OBJ_TOKENS_PER_GPU_HOUR: return "tokens per GPU-hour";
    case SEARCH_OBJ_TOKENS_PER_S:
    default: return "tokens/s";
    }
}

/* Seconds as "%.4f s", or, on a line whose figures all stay below a millisecond (a
 * small model's: they would all print as 0.0000 s), in ms with 3 significant digits. */
static const char *
fmt_s (char *buf, gsize len, double s, gboolean sign, gboolean in_ms)
{
  if (!in_ms)
    g_snprintf (buf, len, sign ? "%+.4f s" : "%.4f s", s);
  else
    g_snprintf (buf, len, sign ? "%+.3g ms" : "%.3g ms", s * 1e3);
  return buf;
}

/* The terms that separate two predictions: step time split into compute, bubble and
 * exposed communication by kind (each the mean over stages, as predict reports them);
 * for a tie on the objective, the rule that ordered them (sim/search-run.c row_cmp:
 * lower peak memory, then lower candidate index). */
static void
print_difference (const Ranked *first, const Ranked *second)
{
  const SimPrediction *a = first->pred, *b = second->pred;
  const SimResult *ra = a->result, *rb = b->result;
  struct { const char *name; double d; } terms[2 + PROG_COMM_N];
  int n = 0;
  terms[n].name = "compute";
  terms[n++].d = rb->compute_s - ra->compute_s;
  terms[n].name = "bubble";
  terms[n++].d = rb->bubble_fraction * rb->step_time_s - ra->bubble_fraction * ra->step_time_s;
  static const char *const kinds[PROG_COMM_N] = {
    [PROG_COMM_TP] = "exposed tp", [PROG_COMM_CP] = "exposed cp",
    [PROG_COMM_EP] = "exposed ep", [PROG_COMM_PP] = "exposed pp",
    [PROG_COMM_DP] = "exposed dp",
  };
  for (int k = 0; k < PROG_COMM_N; k++)
    {
      terms[n].name = kinds[k];
      terms[n++].d = rb->exposed_comm_s[k] - ra->exposed_comm_s[k];
    }
  /* largest |difference| first */
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (fabs (terms[j].d) > fabs (terms[i].d))
        {
          __typeof__ (terms[0]) t = terms[i];
          terms[i] = terms[j];
          terms[j] = t;
        }
  double dstep = rb->step_time_s - ra->step_time_s;
  char buf[64];
  double largest = fabs (dstep);
  for (int i = 0; i < n; i++)
    largest = MAX (largest, fabs (terms[i].d));
  const gboolean in_ms = largest < 1e-3;
  if (first->row->score == second->row->score)
    {
      if (first->row->peak_bytes != second->row->peak_bytes)
        printf ("\n#1 vs #2: tied on the objective; #1 is first by its lower peak memory "
                "(%s less)", cli_fmt_bytes ((double) (second->row->peak_bytes
                                                      - first->row->peak_bytes)));
      else
        printf ("\n#1 vs #2: tied on the objective and on peak memory; #1 is first by its "
                "lower candidate index");
    }
  else if (dstep >= 0)
    printf ("\n#1 vs #2: %s per step faster", fmt_s (buf, sizeof buf, dstep, FALSE, in_ms));
  else
    /* only a per-GPU objective (MFU, tokens per GPU-hour: score = step x GPUs) puts the
     * slower step first: say what it wins instead */
    printf ("\n#1 vs #2: %s per step slower, but on %d GPUs against %d: %.2f%% more "
            "throughput per GPU (the objective)", fmt_s (buf, sizeof buf, -dstep, FALSE, in_ms),
            a->plan.world_size, b->plan.world_size,
            100.0 * (second->row->score / first->row->score - 1.0));
  /* every term that differs, largest first: they add up to the difference (four of
   * them were shown, and a fifth, exposed ep, held 82% of one difference) */
  int shown = 0;
  for (int i = 0; i < n; i++)
    if (fabs (terms[i].d) >= 1e-9)   /* below a nanosecond: rounding of sums, not a term */
      printf ("%s %s %s", shown++ ? "," : "; the terms (#2 minus #1):", terms[i].name,
              fmt_s (buf, sizeof buf, terms[i].d, TRUE, in_ms));
  if (shown == 0)
    printf ("; no term of the step differs");
  printf ("\n  plan differences:");
  const Plan *pa = &a->plan, *pb = &b->plan;
  int diffs = 0;
#define DIFF_INT(field, label) \
  if (pa->field != pb->field) \
    printf ("%s %s %d vs %d", diffs++ ? "," : "", label, pa->field, pb->field);
  DIFF_INT (world_size, "gpus");
  DIFF_INT (tp, "tp");
  DIFF_INT (cp, "cp");
  DIFF_INT (pp, "pp");
  DIFF_INT (vpp, "vpp");
  DIFF_INT (dp, "dp");
  DIFF_INT (micro_batch, "mbs");
  DIFF_INT (hsdp_shard_size, "hsdp K");
#undef DIFF_INT
  if (pa->sharding != pb->sharding)
    printf ("%s sharding %s vs %s", diffs++ ? "," : "", plan_sharding_name (pa->sharding),
            plan_sharding_name (pb->sharding));
  if (pa->recompute != pb->recompute)
    printf ("%s recompute %s vs %s", diffs++ ? "," : "", plan_recompute_name (pa->recompute),
            plan_recompute_name (pb->recompute));
  if (pa->schedule != pb->schedule)
    printf ("%s schedule %s vs %s", diffs++ ? "," : "", plan_schedule_name (pa->schedule),
            plan_schedule_name (pb->schedule));
  if (pa->sequence_parallel != pb->sequence_parallel)
    printf ("%s sp %s vs %s", diffs++ ? "," : "", pa->sequence_parallel ? "on" : "off",
            pb->sequence_parallel ? "on" : "off");
  if (pa->tp_comm_overlap != pb->tp_comm_overlap)
    printf ("%s tp-comm overlap %s vs %s", diffs++ ? "," : "",
            pa->tp_comm_overlap ? "on" : "off", pb->tp_comm_overlap ? "on" : "off");
  if (pa->overlap_grad_reduce != pb->overlap_grad_reduce)
    printf ("%s dp overlap %s vs %s", diffs++ ? "," : "",
            pa->overlap_grad_reduce ? "on" : "off", pb->overlap_grad_reduce ? "on" : "off");
  if (pa->cp_comm != pb->cp_comm)
    printf ("%s cp comm %s vs %s", diffs++ ? "," : "", plan_cp_comm_name (pa->cp_comm),
            plan_cp_comm_name (pb->cp_comm));
  if (g_strcmp0 (pa->rank_order, pb->rank_order) != 0)
    printf ("%s rank order %s vs %s", diffs++ ? "," : "", pa->rank_order, pb->rank_order);
  if (diffs == 0)
    printf (" none");
  printf ("\n");
}

/* One row of the top-K table (place 0: the rule-of-thumb plan). */
/* Decimals for a row's seconds (cli_seconds_decimals) */
#define row_decimals cli_seconds_decimals

/* An exposed time in the row's decimals; with more than three, none exposed reads "0"
 * (seven zeros in five columns hide the one figure that is not zero) */
static void
exposed_cell (CliTable *t, int dec, double s)
{
  if (dec > 3 && s == 0)
    cli_table_cell (t, "0");
  else
    cli_table_cell (t, "%.*f", dec, s);
}

static void
add_row (CliTable *t, int place, const SimPrediction *p, guint *used, gboolean per_gpu_hour)
{
  const SimResult *r = p->result;
  cli_table_add_row (t);
  if (place > 0)
    cli_table_cell (t, "%d", place);
  else
    cli_table_cell (t, "rule");
  /* seconds with three decimals; a step under a second keeps four significant digits
   * (a tiny model's 0.002345 s step read 0.002 on every row), and the row's exposed
   * times take the same decimals so they stay comparable with it */
  const int dec = row_decimals (r->step_time_s);
  cli_table_cell (t, "%.*f", dec, r->step_time_s);
  /* under 100, three figures, as predict gives them (0.0151 read "0") */
  if (r->tokens_per_s < 99.5)
    cli_table_cell (t, "%.3g", r->tokens_per_s);
  else
    cli_table_cell (t, "%s", cli_fmt_count ((guint64) llround (r->tokens_per_s)));
  if (per_gpu_hour)
    cli_table_cell (t, "%s", cli_fmt_count ((guint64) llround (
      r->tokens_per_s * 3600.0 / MAX (p->plan.world_size, 1))));
  cli_table_cell (t, "%.1f%%", r->mfu[MODEL_FLOPS_PALM] * 100);
  cli_table_cell (t, "%.1f%%", r->hfu * 100);
  cli_table_cell (t, "%.1f%%", r->bubble_fraction * 100);
  exposed_cell (t, dec, r->exposed_comm_s[PROG_COMM_TP]);
  exposed_cell (t, dec, r->exposed_comm_s[PROG_COMM_CP]);
  exposed_cell (t, dec, r->exposed_comm_s[PROG_COMM_EP]);
  exposed_cell (t, dec, r->exposed_comm_s[PROG_COMM_PP]);
  exposed_cell (t, dec, r->exposed_comm_s[PROG_COMM_DP]);
  cli_table_cell (t, "%.1f", (double) p->memory.peak_bytes / 1073741824.0);
  cli_table_cell (t, "%s", cli_fmt_count ((guint64) p->plan.world_size));
  g_autofree char *plan = plan_to_string (&p->plan);
  *used |= search_plan_legend (&p->plan);
  cli_table_cell (t, "%s", plan);
}

/* The JSON "mode": exact, or the heuristic --fast. */
static const char *
search_mode (const SearchSpec *spec)
{
  return spec->fast ? "fast (heuristic)" : "exact";
}

/* The plans of the top within the step-time error tandem showed on published runs like
 * them (data/accuracy.json, results/accuracy.h: the held-out mean error of dense runs on
 * the device's family, the dev one where there is none held out, the MoE one for a MoE
 * model): #2.. whose objective is within that many percent of #1's. Their order is the
 * model's, not a measured one; the note says so, or that #2 lies outside it. */
static guint
tie_band (const SearchSpec *spec, const Ranked *top, guint n_top, double *typical_pct,
          char **note)
{
  ResAccuracy acc;
  res_accuracy_load (&acc);
  gboolean moe = model_spec_is_moe (spec->model);
  const char *stack = spec->stack != NULL ? spec->stack->name : FW_STACK_DEFAULT;
  double t = res_accuracy_typical_pct (&acc, topo_device_part (&spec->cluster->device), stack, moe);
  *typical_pct = t;
  guint k = 0;
  for (guint i = 1; i < n_top && isfinite (t); i++)
    if ((top[i].row->score / top[0].row->score - 1.0) * 100.0 < t)
      k++;
  g_autofree char *cls = res_accuracy_sentence (&acc, topo_device_part (&spec->cluster->device), stack, moe);
  if (n_top < 2 || !isfinite (t))
    *note = g_strdup_printf ("%s", cls);
  else if (k > 0)
    {
      g_autofree char *which = k > 1 ? g_strdup_printf ("#2-#%u lie", k + 1)
                                     : g_strdup ("#2 lies");
      *note = g_strdup_printf ("%s within %.1f%% of #1 on the objective, inside tandem's "
                               "error for such runs (%s; of published plan pairs measured "
                               "more than 5%% apart, %u of %u ordered as measured): treat %s "
                               "as tied with #1 and measure before choosing (tandem run)",
                               which, t, cls, acc.ordered_apart, acc.pairs_apart,
                               k > 1 ? "them" : "it");
    }
  else
    *note = g_strdup_printf ("#2 is %.1f%% behind #1 on the objective, more than tandem's "
                             "%.1f%% error for such runs (%s): the order is likely right",
                             (top[1].row->score / top[0].row->score - 1.0) * 100.0, t, cls);
  return k;
}

static void
print_text (const SearchSpace *space, const SearchResult *res, Ranked *top, guint n_top,
            const SimPrediction *recipe, const char *recipe_flags, const char *recipe_why,
            const char *trace, const char *stack_name, gboolean extrapolated)
{
  const SearchSpec *spec = search_space_spec (space);
  printf ("search: %s on %s, seq %d, global batch %d, objective %s, top %d",
          spec->model->name, spec->cluster->name, spec->base.seq_length,
          spec->base.global_batch, objective_about (spec->objective), spec->top_k);
  /* the inputs that change every figure below without showing in the plans: a stack
   * other than the default and the memory kept free */
  if (stack_name != NULL && !g_str_equal (stack_name, "megatron-core"))
    printf (", stack %s", stack_name);
  if (spec->headroom_bytes > 0)
    printf (", %s kept free (--memory-headroom)", cli_fmt_bytes (spec->headroom_bytes));
  printf ("\n");
  if (spec->fast)
    printf ("  mode: fast (heuristic): tp powers of two, mbs 1-2, ring CP, no HSDP, SP with TP, "
            "DP overlap on, %s, recompute only when nothing fits; the exact search "
            "may find better\n",
            spec->stack != NULL && spec->stack->offers_schedules == 0 ? "no pipeline"
            : spec->stack != NULL && !((spec->stack->offers_schedules >> PLAN_SCHED_1F1B) & 1)
              ? "the stack's GPipe" : "no GPipe");
  printf ("  candidates: %s enumerated = %s invalid + %s out of memory + %s pruned by "
          "bound + %s simulated\n", cli_fmt_count (res->enumerated),
          cli_fmt_count (res->invalid), cli_fmt_count (res->oom), cli_fmt_count (res->pruned),
          cli_fmt_count (res->simulated));
  /* under mpirun each rank prunes against its own K-th best: the ranks together
   * simulate more than one process would, and the split says the work they did */
  if (res->ranks > 1)
    printf ("  (summed over %d MPI ranks: each rank prunes against its own K-th best, so "
            "the split between pruned and simulated is not one process's; the other counts "
            "and the answer are)\n", res->ranks);
  printf ("  wall time %.2f s (%.0f candidates/s)\n\n", res->wall_s,
          res->wall_s > 0 ? (double) res->enumerated / res->wall_s : 0.0);
  g_autoptr (CliTable) t = cli_table_new ();
  const char *const heads[] = { "#", "step s", "tokens/s", "MFU", "HFU", "bubble", "exp tp",
                                "exp cp", "exp ep", "exp pp", "exp dp", "peak GiB",
                                "GPUs" };
  /* the objective tokens per GPU-hour ranks by a figure of its own: its column after
   * tokens/s (tokens/s x 3600 / GPUs) */
  const gboolean per_gpu_hour = spec->objective == SEARCH_OBJ_TOKENS_PER_GPU_HOUR;
  for (guint c = 0; c < G_N_ELEMENTS (heads); c++)
    {
      cli_table_add_column (t, heads[c], CLI_ALIGN_RIGHT);
      if (per_gpu_hour && c == 2)
        cli_table_add_column (t, "tok/GPU-h", CLI_ALIGN_RIGHT);
    }
  cli_table_add_column (t, "plan", CLI_ALIGN_LEFT);
  guint used = 0;
  for (guint i = 0; i < n_top; i++)
    add_row (t, (int) i + 1, top[i].pred, &used, per_gpu_hour);
  if (recipe != NULL)
    add_row (t, 0, recipe, &used, per_gpu_hour);
  cli_table_print (t, stdout, "");
  printf ("\n  (MFU in the palm convention; exposed communication in seconds per step, mean "
          "over stages)\n");
  if (used != 0)
    {
      static const struct { guint bit; const char *text; } legend[] = {
        { SEARCH_EXTRA_CPAG, "-cpag CP all-gather" }, { SEARCH_EXTRA_CPA2A, "-cpa2a CP all-to-all" },
        { SEARCH_EXTRA_TPOV, "-tpov TP-comm overlap" },
        { SEARCH_EXTRA_DPOV, "-dpov DP grad-reduce and param-gather overlap" },
        { SEARCH_EXTRA_GRADOV, "-gradov DP grad-reduce overlap" },
        { SEARCH_EXTRA_PARAMOV, "-paramov DP param-gather overlap" },
        { SEARCH_EXTRA_PPDP, "-ppdp rank order tp-cp-ep-pp-dp" },
        { SEARCH_EXTRA_ACCT, "-acct e / l: the embedding / loss takes a layer's slot in "
                             "the pipeline split" },
        { SEARCH_EXTRA_SPLIT, "-splitF.L F layers on the first stage, L on the last" },
        { SEARCH_EXTRA_CHUNKS, "-chunksF.L F layers in the first model chunk, L in the "
                               "last" },
      };
      printf ("  (plan suffixes:");
      const char *sep = " ";
      for (guint i = 0; i < G_N_ELEMENTS (legend); i++)
        if (used & legend[i].bit)
          printf ("%s%s", sep, legend[i].text), sep = "; ";
      printf (")\n");
    }
  /* as tandem predict says it under its figures (issue 13 item 1): every plan of the
   * table shares the device and the stack, so one line covers them all */
  if (extrapolated)
    printf ("  (extrapolated: no fitted calibration or published run behind %s with the %s "
            "stack)\n", spec->cluster->device.name, stack_name);
  printf ("\nplans, as tandem predict flags:\n");
  for (guint i = 0; i < n_top; i++)
    printf ("%4d  tandem predict %s\n", (int) i + 1, top[i].flags);
  if (recipe != NULL)
    printf ("rule  tandem predict %s\n", recipe_flags);
  if (n_top >= 2)
    {
      print_difference (&top[0], &top[1]);
      double t;
      g_autofree char *note = NULL;
      tie_band (spec, top, n_top, &t, &note);
      printf ("  within the error: %s\n", note);
    }
  if (recipe != NULL && n_top > 0)
    {
      double a = top[0].pred->result->tokens_per_s, b = recipe->result->tokens_per_s;
      printf ("\nrule of thumb (README): %s tokens/s; the search's best: %s tokens/s "
              "(%+.1f%%)\n", cli_fmt_count ((guint64) llround (b)),
              cli_fmt_count ((guint64) llround (a)), b > 0 ? (a / b - 1) * 100 : 0.0);
      /* the rule ignores the constraints given; the exact search cannot lose to a plan
       * inside its space, which the constraints, --fast and the space's own limits
       * (HSDP with experts, tp within the NVLink domain: README) bound */
      if (a < b)
        printf ("  (the rule's plan lies outside the space searched: the constraints given%s "
                "or the space's own limits (README: the search space) exclude it)\n",
                spec->fast ? ", --fast's rules" : "");
    }
  else if (recipe_why != NULL)
    printf ("\nrule of thumb: %s\n", recipe_why);
  if (trace)
    {
      g_autofree char *shown = cli_printable (trace, NULL);
      printf ("trace of #1: %s (open in ui.perfetto.dev)\n", shown);
    }
}

static int
cmp_str_ptr (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static void
print_reasons (const SearchResult *res, FILE *out)
{
  GHashTableIter it;
  gpointer k, v;
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_hash_table_iter_init (&it, res->invalid_reasons);
  while (g_hash_table_iter_next (&it, &k, &v))
    g_ptr_array_add (lines, g_strdup_printf ("%10u  %s", GPOINTER_TO_UINT (v),
                                             (const char *) k));
  g_ptr_array_sort (lines, cmp_str_ptr);
  for (guint i = lines->len; i-- > 0;)
    fprintf (out, "  %s\n", (const char *) g_ptr_array_index (lines, i));
}

static void
add_counts_json (JsonBuilder *b, const SearchResult *res)
{
  json_builder_set_member_name (b, "counts");
  json_builder_begin_object (b);
  const struct { const char *k; guint64 v; } c[] = {
    { "enumerated", res->enumerated }, { "invalid", res->invalid }, { "oom", res->oom },
    { "pruned", res->pruned }, { "simulated", res->simulated },
  };
  for (guint i = 0; i < G_N_ELEMENTS (c); i++)
    {
      json_builder_set_member_name (b, c[i].k);
      json_builder_add_int_value (b, (gint64) c[i].v);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "invalid_reasons");
  json_builder_begin_object (b);
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, res->invalid_reasons);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      json_builder_set_member_name (b, k);
      json_builder_add_int_value (b, GPOINTER_TO_UINT (v));
    }
  json_builder_end_object (b);
}

/* ---- progress ------------------------------------------------------------------------- */

/* One line per phase, rewritten in place (\r) and closed once when the phase is done: the
 * library may report a phase's end twice (the last chunk, then the phase's own end). */
typedef struct {
  gint64 t0;
  char  *phase;
  gint64 phase_t0;
  gboolean open;        /* a line on stderr without its newline */
  gboolean phase_done;  /* this phase's last line printed */
} Progress;

static void
on_progress (const char *phase, guint64 done, guint64 total, guint64 simulated,
             guint64 pruned, gpointer data)
{
  Progress *pr = data;
  gint64 now = g_get_monotonic_time ();
  if (g_strcmp0 (pr->phase, phase) != 0)
    {
      if (pr->open)
        fputc ('\n', stderr);
      g_free (pr->phase);
      pr->phase = g_strdup (phase);
      pr->phase_t0 = now, pr->open = FALSE, pr->phase_done = FALSE;
    }
  if (pr->phase_done)
    return;
  double el = (double) (now - pr->phase_t0) / 1e6;
  char tail[64];
  /* a rate from under 0.2 s or no candidate is noise: none rather than "0/s, ETA 0 s" */
  if (done >= total)
    g_snprintf (tail, sizeof tail, "done in %.1f s", el);
  else if (done > 0 && el >= 0.2)
    g_snprintf (tail, sizeof tail, "%.0f/s, ETA %.0f s", (double) done / el,
                (double) (total - done) / ((double) done / el));
  else
    g_snprintf (tail, sizeof tail, "ETA -");
  g_autofree char *d = g_strdup (cli_fmt_count (done));
  if (g_str_equal (phase, "simulating"))
    {
      /* the candidates that fit, best bound first: each one simulated or pruned by its
       * bound (the old 'N / N candidates' read as N simulations) */
      g_autofree char *tot = g_strdup (cli_fmt_count (total));
      g_autofree char *sim = g_strdup (cli_fmt_count (simulated));
      fprintf (stderr, "\r%s: %s / %s candidates that fit (%s simulated, %s pruned by "
               "bound), %s   ", phase, d, tot, sim, cli_fmt_count (pruned), tail);
    }
  else
    fprintf (stderr, "\r%s: %s / %s candidates, %s   ", phase, d, cli_fmt_count (total),
             tail);
  pr->open = done < total;
  pr->phase_done = done >= total;
  if (pr->phase_done)
    fputc ('\n', stderr);
  fflush (stderr);
}

/* Closes a line left open (a phase that ended without its last report). */
static void
progress_end (Progress *pr)
{
  if (pr->open)
    fputc ('\n', stderr);
  pr->open = FALSE;
  g_clear_pointer (&pr->phase, g_free);
}

/* ---- store ----------------------------------------------------------------------------- */

static gint64
store_search (const char *db, int timeout_ms, const SearchSpace *space,
              const SearchResult *res, const SimPrediction *best, const char *note,
              const char *extra, const char *framework, GError **error)
{
  const SearchSpec *spec = search_space_spec (space);
  /* named as the table names it (the plan's name, its suffixes -dpov, -tpov, -cpa2a,
   * -ppdp included) */
  g_autofree char *plan_str = plan_to_string (&best->plan);
  g_autoptr (JsonBuilder) pb = json_builder_new ();
  plan_to_json (&best->plan, pb);
  g_autofree char *plan_json = cli_json_text (pb);
  g_autoptr (JsonBuilder) mb = json_builder_new ();
  plan_memory_to_json (&best->memory, mb);
  g_autofree char *memory_json = cli_json_text (mb);
  g_autofree char *mfu = cli_conv_json (best->model, best->result->mfu, 1);
  double hfu_all[MODEL_FLOPS_N_CONVENTIONS];
  for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
    hfu_all[c] = best->result->hfu;
  g_autofree char *hfu = cli_conv_json (NULL, hfu_all, 1);
  g_autofree char *summary = g_strdup_printf (
    "search (%s): %" G_GUINT64_FORMAT " enumerated = %" G_GUINT64_FORMAT " invalid + %"
    G_GUINT64_FORMAT " oom + %" G_GUINT64_FORMAT " pruned + %" G_GUINT64_FORMAT
    " simulated, objective %s%s%s", spec->fast ? "--fast, heuristic" : "exact",
    res->enumerated, res->invalid,
    res->oom, res->pruned, res->simulated, search_objective_name (spec->objective),
    note ? "; " : "", note ? note : "");
  ResRunInfo info = { 0 };
  info.kind = RES_KIND_SEARCH;
  info.status = RES_STATUS_OK;
  info.model = spec->model->name;
  info.cluster = spec->cluster->name;
  info.plan = plan_str;
  info.plan_json = plan_json;
  info.model_json = spec->model->config_json;
  info.cluster_json = spec->cluster->json;
  info.world_size = best->plan.world_size;
  info.note = summary;
  /* the stack every candidate was costed with: tandem runs and report run N read it (a
   * run without one is re-simulated on megatron-core) */
  info.framework = framework;
  ResMetrics m;
  cli_predicted_metrics (best, &best->memory, mfu, hfu, memory_json, &m);

  /* one row per simulated candidate: its plan as resolved, its figures, its place */
  guint n = res->rows->len;
  g_autofree ResSearchCandidate *rows = g_new0 (ResSearchCandidate, MAX (n, 1));
  g_autoptr (GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < n; i++)
    {
      const SearchRow *r = &g_array_index (res->rows, SearchRow, i);
      Plan p;
      search_candidate_plan (space, r->index, &p);
      plan_resolve (&p, spec->model, spec->cluster, NULL);
      ResSearchCandidate *c = &rows[i];
      char *fl = search_plan_flags (space, &p, extra);
      /* the plan as it was simulated (the stack's attention and overlaps: deepspeed's
       * -unfused) and the table's suffixes: the stored name said ...-zero2-1F1B where the
       * table and the run's own name said ...-zero2-unfused-1F1B, and two places that
       * differed only by the DP overlap had one name */
      sim_plan_apply_stack (&p, &spec->sim.cost);
      char *ps = plan_to_string (&p);
      g_ptr_array_add (strings, ps);
      g_ptr_array_add (strings, fl);
      c->place = r->place;
      c->plan = ps;
      c->tp = p.tp, c->cp = p.cp, c->pp = p.pp, c->vpp = p.vpp, c->dp = p.dp, c->ep = p.ep;
      c->mbs = p.micro_batch;
      c->sharding = plan_sharding_name (p.sharding);
      c->recompute = plan_recompute_name (p.recompute);
      c->schedule = plan_schedule_name (p.schedule);
      c->step_time_s = r->step_time_s;
      c->tokens_per_s = r->tokens_per_s;
      c->mfu = r->mfu;
      c->hfu = r->hfu;
      c->peak_memory_bytes = (gint64) r->peak_bytes;
      c->fits = 1;
      c->flags = fl;
      plan_clear (&p);
    }
  g_autoptr (ResStore) store = res_store_open_full (db, RES_OPEN_DEFAULT, (guint) timeout_ms,
                                                    error);
  if (store == NULL)
    return -1;
  return res_store_add_search (store, &info, &m, rows, n, error);
}

/* ---- MPI: ranks split the space, rank 0 gathers ------------------------------------ */

#if HAVE_MPI
#include <mpi.h>

/* A result as bytes: 10 u64 header, rows, then "count\treason\n" lines. */
static GBytes *
result_pack (const SearchResult *r)
{
  GByteArray *b = g_byte_array_new ();
  guint64 h[10] = { r->enumerated, r->invalid, r->oom, r->pruned, r->simulated,
                    (guint64) r->closest_set, r->closest_index, r->closest_peak_bytes,
                    r->closest_capacity_bytes, r->rows->len };
  g_byte_array_append (b, (const guint8 *) h, sizeof h);
  g_byte_array_append (b, (const guint8 *) r->rows->data, r->rows->len * sizeof (SearchRow));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, r->invalid_reasons);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      g_autofree char *line = g_strdup_printf ("%u\t%s\n", GPOINTER_TO_UINT (v),
                                               (const char *) k);
      g_byte_array_append (b, (const guint8 *) line, strlen (line));
    }
  return g_byte_array_free_to_bytes (b);
}

static SearchResult *
result_unpack (const guint8 *data, gsize len)
{
  SearchResult *r = search_result_new ();
  guint64 h[10];
  if (len < sizeof h)
    return r;
  memcpy (h, data, sizeof h);
  r->enumerated = h[0], r->invalid = h[1], r->oom = h[2], r->pruned = h[3];
  r->simulated = h[4], r->closest_set = h[5] != 0, r->closest_index = h[6];
  r->closest_peak_bytes = h[7], r->closest_capacity_bytes = h[8];
  gsize off = sizeof h, rows = h[9] * sizeof (SearchRow);
  if (off + rows > len)
    return r;
  g_array_append_vals (r->rows, data + off, (guint) h[9]);
  off += rows;
  g_autofree char *text = g_strndup ((const char *) data + off, len - off);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (int i = 0; lines[i]; i++)
    {
      char *tab = strchr (lines[i], '\t');
      if (tab == NULL)
        continue;
      *tab = '\0';
      guint n = (guint) g_ascii_strtoull (lines[i], NULL, 10);
      guint had = GPOINTER_TO_UINT (g_hash_table_lookup (r->invalid_reasons, tab + 1));
      g_hash_table_insert (r->invalid_reasons, g_strdup (tab + 1),
                           GUINT_TO_POINTER (had + n));
    }
  return r;
}

static int
mpi_size_from_env (void)
{
  const char *vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", NULL };
  for (int i = 0; vars[i]; i++)
    {
      const char *v = g_getenv (vars[i]);
      if (v != NULL)
        return atoi (v);
    }
  return 0;
}

/* Liveness under mpirun. MPI_Gather and MPI_Finalize wait for every rank, so one rank
 * that was stopped (SIGSTOP), hung or lost without its launcher noticing held the others
 * there forever (`mpirun -np 2 tandem search ...` with rank 1 stopped: no end until killed
 * from outside). Now a thread of each rank beats: rank 0 to every other rank and they to
 * rank 0, a small message four times per --timeout; every wait for a peer (its share of
 * the search, rank 0's verdict of a --fast second pass, rank 0's end) polls, and gives up
 * once that peer sent nothing for --timeout: "rank R sent nothing for T s (dead, stopped or
 * hung) while ...", exit 1 for the job (MPI_Abort). A rank that only computes long still
 * beats, so a slow rank is waited for. The beat thread needs MPI_THREAD_MULTIPLE; where
 * MPI does not provide it the waits are the same polls without the limit. */
enum { TAG_BEAT = 7101, TAG_RESULT, TAG_VERDICT, TAG_DONE };

typedef struct {
  gboolean     on;           /* beats run: the waits below have a limit */
  int          rank, size;
  double       timeout_s;
  GMutex       lock;
  gint64      *last_us;      /* per rank: when its last beat (or message) came */
  MPI_Request *req;          /* per peer: the beat in flight, MPI_REQUEST_NULL none */
  int          beat;         /* what a beat carries (nothing: its arrival is the news) */
  gint         stop;
  GThread     *thread;
} Live;

static Live live;

static gboolean
live_peer (int q)
{
  return q != live.rank && (live.rank == 0 || q == 0);
}

static void
live_heard (int q)
{
  g_mutex_lock (&live.lock);
  live.last_us[q] = g_get_monotonic_time ();
  g_mutex_unlock (&live.lock);
}

static gpointer
live_thread (gpointer data)
{
  (void) data;
  const gulong period_us = (gulong) (CLAMP (live.timeout_s / 4, 0.01, 2.0) * 1e6);
  while (!g_atomic_int_get (&live.stop))
    {
      for (int q = 0; q < live.size; q++)
        {
          if (!live_peer (q))
            continue;
          int done = 1;
          if (live.req[q] != MPI_REQUEST_NULL)
            MPI_Test (&live.req[q], &done, MPI_STATUS_IGNORE);
          if (done)   /* one beat in flight per peer: a stopped one gets no pile */
            MPI_Isend (&live.beat, 1, MPI_INT, q, TAG_BEAT, MPI_COMM_WORLD, &live.req[q]);
        }
      /* what came since: each beat says its sender is there */
      for (gint64 until = g_get_monotonic_time () + period_us;
           g_get_monotonic_time () < until && !g_atomic_int_get (&live.stop);)
        {
          int flag = 0;
          MPI_Status st;
          MPI_Iprobe (MPI_ANY_SOURCE, TAG_BEAT, MPI_COMM_WORLD, &flag, &st);
          if (!flag)
            {
              g_usleep (MIN (period_us, 10000));
              continue;
            }
          int v;
          MPI_Recv (&v, 1, MPI_INT, st.MPI_SOURCE, TAG_BEAT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          live_heard (st.MPI_SOURCE);
        }
    }
  return NULL;
}

static void
live_start (int rank, int size, double timeout_s, gboolean beats)
{
  live.rank = rank;
  live.size = size;
  live.timeout_s = timeout_s;
  g_mutex_init (&live.lock);
  live.last_us = g_new (gint64, size);
  live.req = g_new (MPI_Request, size);
  for (int q = 0; q < size; q++)
    live.last_us[q] = g_get_monotonic_time (), live.req[q] = MPI_REQUEST_NULL;
  live.on = beats;
  if (beats)
    live.thread = g_thread_new ("tandem-beats", live_thread, NULL);
}

static void
live_end (void)
{
  if (live.thread)
    {
      g_atomic_int_set (&live.stop, 1);
      g_thread_join (live.thread);
      live.thread = NULL;
    }
  for (int q = 0; live.req && q < live.size; q++)
    if (live.req[q] != MPI_REQUEST_NULL)
      {
        int done = 0;
        MPI_Test (&live.req[q], &done, MPI_STATUS_IGNORE);
        if (!done)
          MPI_Request_free (&live.req[q]);   /* a beat to a rank that left: let it go */
      }
  g_clear_pointer (&live.req, g_free);
  g_clear_pointer (&live.last_us, g_free);
}

/* Ends the job: this rank says why, MPI_Abort ends the others (exit 1). */
static void G_GNUC_NORETURN
live_abort (const char *message)
{
  fprintf (stderr, "tandem: error: rank %d: %s\n", live.rank, message);
  fflush (stderr);
  fflush (stdout);
  MPI_Abort (MPI_COMM_WORLD, CLI_EXIT_FAILURE);
  _exit (CLI_EXIT_FAILURE);
}

/* Gives up when `peer` has sent nothing for a timeout, saying what this rank waited for. */
static void
live_check (int peer, const char *what)
{
  if (!live.on)
    return;
  g_mutex_lock (&live.lock);
  double silent = (g_get_monotonic_time () - live.last_us[peer]) * 1e-6;
  g_mutex_unlock (&live.lock);
  if (silent <= live.timeout_s)
    return;
  g_autofree char *m = g_strdup_printf ("rank %d sent nothing for %.1f s (dead, stopped or "
                                        "hung) while %s (hint: a slow rank still beats; "
                                        "--timeout S above %g waits longer)", peer, silent,
                                        what, live.timeout_s);
  live_abort (m);
}

static void
live_nap (gulong *us)
{
  g_usleep (*us);
  *us = MIN (*us * 2, 10000);
}

/* Completes a send to `peer`, giving up as live_check. */
static void
live_wait_send (MPI_Request *req, int peer, const char *what)
{
  gulong nap = 50;
  for (;;)
    {
      int done = 0;
      if (MPI_Test (req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        live_abort ("MPI_Test of a send failed");
      if (done)
        return;
      live_check (peer, what);
      live_nap (&nap);
    }
}

/* Receives the message of `tag` from `src`, any length (g_free it), giving up as
 * live_check. */
static guint8 *
live_recv (int src, int tag, int *len, const char *what)
{
  gulong nap = 50;
  for (;;)
    {
      int flag = 0;
      MPI_Status st;
      if (MPI_Iprobe (src, tag, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS)
        live_abort ("MPI_Iprobe failed");
      if (flag)
        {
          int n = 0;
          MPI_Get_count (&st, MPI_BYTE, &n);
          guint8 *buf = g_malloc (MAX (n, 1));
          if (MPI_Recv (buf, n, MPI_BYTE, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
              != MPI_SUCCESS)
            live_abort ("MPI_Recv failed");
          live_heard (src);
          *len = n;
          return buf;
        }
      live_check (src, what);
      live_nap (&nap);
    }
}

/* Rank 0 sends `n` bytes to every other rank (one tag), each send completed. */
static void
live_send_all (int tag, const void *data, int n, const char *what)
{
  g_autofree MPI_Request *reqs = g_new (MPI_Request, live.size);
  for (int q = 1; q < live.size; q++)
    MPI_Isend (data, n, MPI_BYTE, q, tag, MPI_COMM_WORLD, &reqs[q]);
  for (int q = 1; q < live.size; q++)
    live_wait_send (&reqs[q], q, what);
}

/* Gathers every rank's result on rank 0 (merged there in rank order; other ranks keep
 * theirs). */
static void
mpi_gather (const SearchSpace *space, SearchResult **res, int rank, int size)
{
  g_autoptr (GBytes) mine = result_pack (*res);
  gsize len = 0;
  const guint8 *data = g_bytes_get_data (mine, &len);
  if (len > G_MAXINT)
    live_abort ("a rank's share of the search is above 2 GiB, more than one MPI message");
  if (rank != 0)
    {
      MPI_Request req;
      MPI_Isend (data, (int) len, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD, &req);
      live_wait_send (&req, 0, "sending its share of the search to rank 0");
      return;
    }
  SearchResult *merged = search_result_new ();
  double wall = (*res)->wall_s;
  for (int i = 0; i < size; i++)
    {
      int n = (int) len;
      g_autofree guint8 *theirs = NULL;
      if (i > 0)
        {
          g_autofree char *what = g_strdup_printf ("rank 0 waited for the share of the "
                                                   "search of rank %d", i);
          theirs = live_recv (i, TAG_RESULT, &n, what);
        }
      g_autoptr (SearchResult) part = result_unpack (i > 0 ? theirs : data, (gsize) n);
      search_result_merge (space, merged, part);
    }
  merged->wall_s = wall;
  merged->ranks = size;
  search_result_free (*res);
  *res = merged;
}

/* The end: rank 0 has printed and stored; the others wait for its word before
 * MPI_Finalize (which waits for every rank), so that a rank 0 stopped while it reports
 * ends the job instead of holding it. */
static void
mpi_end (int rank, int status)
{
  if (rank == 0)
    live_send_all (TAG_DONE, &status, sizeof status, "rank 0 told the others it is done");
  else
    {
      int n = 0;
      g_free (live_recv (0, TAG_DONE, &n, "waiting for rank 0 to print and store the result"));
    }
}
#endif

/* ---- the command ------------------------------------------------------------------------ */

/* Under mpirun every rank reads the same argv, so an input error is the same on each: the
 * ranks other than 0 (from the launcher's environment, before MPI_Init) keep quiet until
 * the search starts, and the user reads the one line once. Returns the saved stderr, or
 * -1 when nothing was silenced. */
static int
quiet_other_ranks (void)
{
  const char *vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", NULL };
  for (int i = 0; vars[i]; i++)
    {
      const char *v = g_getenv (vars[i]);
      if (v == NULL)
        continue;
      if (atoi (v) <= 0)
        return -1;
      fflush (stderr);
      int saved = dup (STDERR_FILENO);
      int null_fd = open ("/dev/null", O_WRONLY);
      if (saved < 0 || null_fd < 0)
        {
          if (saved >= 0)
            close (saved);
          if (null_fd >= 0)
            close (null_fd);
          return -1;
        }
      dup2 (null_fd, STDERR_FILENO);
      close (null_fd);
      return saved;
    }
  return -1;
}

/* the stderr that quiet_other_ranks saved (-1: none) */
static int saved_stderr = -1;

static void
stderr_restore (int *saved)
{
  if (*saved < 0)
    return;
  fflush (stderr);
  dup2 (*saved, STDERR_FILENO);
  close (*saved);
  *saved = -1;
}

static void
opts_clear (Opts *o)
{
  search_spec_clear (&o->spec);
  g_free (o->db);
  g_free (o->trace_best);
  g_free (o->framework);
  g_free (o->note);
  g_free (o->sharding_flag);
  g_free (o->stack_name);
  g_free (o->stack_stored);
  plan_args_clear (&o->args);
  if (o->extra)
    g_string_free (o->extra, TRUE);
}

static int
run_search (Opts *o, int mpi_rank, int mpi_size)
{
  g_autoptr (GError) error = NULL;
  SearchSpec *spec = &o->spec;
  g_autoptr (SearchSpace) space = search_space_new (spec, &error);
  if (space == NULL)
    return cli_fail (error->domain == SEARCH_ERROR
                     && error->code == SEARCH_ERROR_CONSTRAINT ? CLI_EXIT_USAGE
                     : CLI_EXIT_FAILURE, "%s", error->message);
  cli_warn_untimed (&spec->base);   /* every candidate keeps the base plan's offload */
  cli_warn_unknown_part (spec->cluster);
  /* a size of a --gpus list that the constraints leave no candidate at is said (it was
   * dropped in silence: --gpus 16,7 --tp 2 searched 16 alone, where --gpus 7 --tp 2 is
   * refused); the others are searched */
  if (mpi_rank == 0 && spec->gpus != NULL && spec->gpus->len > 1)
    for (guint i = 0; i < spec->gpus->len; i++)
      {
        const int g = g_array_index (spec->gpus, int, i);
        if (search_space_size_at (space, g) == 0)
          fprintf (stderr, "tandem: note: --gpus %d: the constraints leave no plan to try at "
                   "that size (tp x cp x pp must divide it, its dp the global batch, and each TP "
                   "group lie in one NVLink domain); "
                   "the other sizes are searched (hint: tandem search --gpus %d alone says "
                   "which constraint)\n", g, g);
      }
  /* the input is read and the space stands: from here on a rank's failure is its own */
  stderr_restore (&saved_stderr);
  guint64 n = search_space_size (space);
  SearchRunOptions ro = { 0 };
  ro.first = n * (guint64) mpi_rank / (guint64) mpi_size;
  ro.last = n * (guint64) (mpi_rank + 1) / (guint64) mpi_size;
  if (ro.last == ro.first)
    ro.last = ro.first;      /* an empty range: nothing to do on this rank */
  ro.threads = o->threads;
  if (ro.threads == 0 && mpi_size > 1)
    {
      const char *local = g_getenv ("OMPI_COMM_WORLD_LOCAL_SIZE");
      int per_node = local ? MAX (1, atoi (local)) : mpi_size;
      ro.threads = MAX (1, (int) g_get_num_processors () / per_node);
    }
  ro.no_prune = o->no_prune;
  Progress pr = { g_get_monotonic_time (), NULL, 0, FALSE, FALSE };
  if (mpi_rank == 0 && isatty (STDERR_FILENO))
    {
      ro.progress = on_progress;
      ro.progress_data = &pr;
    }
  /* test hook: rank R stops itself (SIGSTOP) before its share (tests/cli/test-search-cli.c) */
  const char *stop = g_getenv ("TANDEM_TEST_SEARCH_STOP_RANK");
  if (stop != NULL && mpi_size > 1 && atoi (stop) == mpi_rank)
    {
      fprintf (stderr, "tandem: rank %d: TANDEM_TEST_SEARCH_STOP_RANK: SIGSTOP\n", mpi_rank);
      fflush (stderr);
      raise (SIGSTOP);
    }
  gint64 t0 = g_get_monotonic_time ();
  SearchResult *res = NULL;
  if (ro.last > ro.first || mpi_size == 1)
    res = search_run (space, &ro, &error);
  else
    res = search_result_new ();
  progress_end (&pr);
#if HAVE_MPI
  /* one rank's failure ends the job: the others would wait for its share */
  if (res == NULL && mpi_size > 1)
    live_abort (error->message);
#endif
  if (res == NULL)
    return cli_fail (CLI_EXIT_FAILURE, "%s", error->message);
#if HAVE_MPI
  if (mpi_size > 1)
    mpi_gather (space, &res, mpi_rank, mpi_size);
#endif
  g_autoptr (SearchResult) result = res;
  double wall_s = (double) (g_get_monotonic_time () - t0) / 1e6;
  /* --fast: recompute only when no plan fits without it, in a second pass (every rank
   * takes rank 0's word for it) */
  if (spec->fast && spec->fast_recompute_open
      && spec->recompute_mask == (1u << PLAN_RECOMPUTE_NONE))
    {
      int again = mpi_rank == 0 && result->top->len == 0;
#if HAVE_MPI
      if (mpi_size > 1 && mpi_rank == 0)
        live_send_all (TAG_VERDICT, &again, sizeof again, "rank 0 sent its verdict on a "
                       "second --fast pass");
      else if (mpi_size > 1)
        {
          int n = 0;
          g_autofree int *v = (int *) live_recv (0, TAG_VERDICT, &n, "waiting for rank 0's "
                                                  "verdict on a second --fast pass");
          again = n == sizeof (int) ? *v : 0;
        }
#endif
      if (again)
        {
          search_spec_fast (spec, TRUE);
          o->earlier_wall_s += wall_s;
          return run_search (o, mpi_rank, mpi_size);
        }
    }
  if (mpi_rank != 0)
    return CLI_EXIT_OK;
  result->wall_s = wall_s + o->earlier_wall_s;

  /* nothing fits: the reasons and the closest miss, status 3 */
  if (result->top->len == 0)
    {
      g_autofree char *closest = NULL;
      if (result->closest_set)
        closest = search_candidate_flags (space, result->closest_index, o->extra->str);
      /* every candidate invalid and none out of memory: the input admits no plan at all
       * (bad input, 2), not a space short of memory (3) with a hint to add GPUs; --gbs
       * 2147483647 (prime, so dp 1) left 2^31 - 1 micro-batches to every candidate */
      gboolean all_invalid = result->oom == 0 && result->invalid == result->enumerated;
      const char *verdict = all_invalid ? "no valid plan" : "no plan fits";
      if (o->json)
        {
          g_autoptr (JsonBuilder) b = json_builder_new ();
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "objective");
          json_builder_add_string_value (b, search_objective_name (spec->objective));
          json_builder_set_member_name (b, "mode");
          json_builder_add_string_value (b, search_mode (spec));
          json_builder_set_member_name (b, "top");
          json_builder_begin_array (b);
          json_builder_end_array (b);
          add_counts_json (b, result);
          json_builder_set_member_name (b, "closest_miss");
          if (closest)
            {
              json_builder_begin_object (b);
              json_builder_set_member_name (b, "flags");
              json_builder_add_string_value (b, closest);
              json_builder_set_member_name (b, "peak_bytes");
              json_builder_add_int_value (b, (gint64) result->closest_peak_bytes);
              json_builder_set_member_name (b, "capacity_bytes");
              json_builder_add_int_value (b, (gint64) result->closest_capacity_bytes);
              /* the HBM is not the budget under --memory-headroom: with 79 GiB kept free
               * the miss read 80 GiB of capacity and no margin */
              json_builder_set_member_name (b, "headroom_bytes");
              json_builder_add_int_value (b, (gint64) spec->headroom_bytes);
              json_builder_set_member_name (b, "over_bytes");
              json_builder_add_int_value (b, (gint64) ((double) result->closest_peak_bytes
                                                       + spec->headroom_bytes
                                                       - (double) result->closest_capacity_bytes));
              json_builder_end_object (b);
            }
          else
            json_builder_add_null_value (b);
          json_builder_set_member_name (b, "recipe");
          json_builder_add_null_value (b);
          json_builder_set_member_name (b, "recipe_reason");
          json_builder_add_string_value (b, verdict);
          json_builder_set_member_name (b, "wall_s");
          json_builder_add_double_value (b, result->wall_s);
          json_builder_set_member_name (b, "run_id");
          json_builder_add_null_value (b);
          json_builder_set_member_name (b, "store_error");
          g_autofree char *nothing = g_strdup_printf ("nothing to store: %s", verdict);
          json_builder_add_string_value (b, nothing);
          json_builder_end_object (b);
          cli_print_json (b);
        }
      fprintf (stderr, "tandem: error: %s: %s enumerated = %s invalid + %s out of "
               "memory + %s pruned + %s simulated", verdict, cli_fmt_count (result->enumerated),
               cli_fmt_count (result->invalid), cli_fmt_count (result->oom),
               cli_fmt_count (result->pruned), cli_fmt_count (result->simulated));
      if (all_invalid)
        {
          fprintf (stderr, " (hint: each reason below names what to change)\n"
                   "invalid candidates by reason:\n");
          print_reasons (result, stderr);
          return CLI_EXIT_USAGE;   /* docs/contracts.md: an impossible plan */
        }
      if (closest)
        {
          double over = (double) result->closest_peak_bytes + spec->headroom_bytes
                        - (double) result->closest_capacity_bytes;
          /* with --memory-headroom the budget is the HBM less the margin: name both, so
           * "needs 20 GiB" never reads as over "80 GiB" */
          if (spec->headroom_bytes > 0)
            {
              g_autofree char *hbm = g_strdup (cli_fmt_bytes ((double) result->closest_capacity_bytes));
              g_autofree char *margin = g_strdup (cli_fmt_bytes (spec->headroom_bytes));
              fprintf (stderr, "; closest miss needs %s where %s of HBM less the %s "
                       "--memory-headroom leaves %s (%s over): tandem predict %s",
                       cli_fmt_bytes ((double) result->closest_peak_bytes), hbm, margin,
                       cli_fmt_bytes ((double) result->closest_capacity_bytes
                                      - spec->headroom_bytes),
                       cli_fmt_bytes (over), closest);
            }
          else
            fprintf (stderr, "; closest miss needs %s of %s (%s over): tandem predict %s",
                     cli_fmt_bytes ((double) result->closest_peak_bytes),
                     cli_fmt_bytes ((double) result->closest_capacity_bytes),
                     cli_fmt_bytes (over), closest);
        }
      /* the levers the space already had are no hint: recompute, sharding and the
       * micro-batch only where the user narrowed them, each by name */
      g_autoptr (GPtrArray) lev = g_ptr_array_new ();
      if (o->narrowed_memory & NARROWED_RECOMPUTE)
        g_ptr_array_add (lev, "--recompute");
      if (o->narrowed_memory & NARROWED_SHARDING)
        g_ptr_array_add (lev, "--sharding");
      if (o->narrowed_memory & NARROWED_MBS)
        g_ptr_array_add (lev, "--mbs");
      g_autoptr (GString) levers = g_string_new (NULL);
      for (guint i = 0; i < lev->len; i++)
        g_string_append_printf (levers, "%s%s", i == 0 ? "; or let "
                                : i + 1 == lev->len ? " and " : ", ",
                                (const char *) lev->pdata[i]);
      if (lev->len > 0)
        g_string_append (levers, " take more values");
      fprintf (stderr, " (hint: more GPUs, or a smaller --gbs or --seq-length%s%s)\n",
               spec->headroom_bytes > 0 ? ", or a smaller --memory-headroom" : "",
               levers->str);
      if (result->invalid > 0)
        {
          fprintf (stderr, "invalid candidates by reason:\n");
          print_reasons (result, stderr);
        }
      return 3;   /* CLI_EXIT_NOFIT, docs/contracts.md */
    }

  /* the top K, predicted again for their full metrics (the best with its timeline) */
  guint n_top = result->top->len;
  g_autofree Ranked *top = g_new0 (Ranked, n_top);
  int status = CLI_EXIT_OK;
  gboolean trace_failed = FALSE;   /* the answer is printed all the same, then exit 1 */
  for (guint i = 0; i < n_top && status == CLI_EXIT_OK; i++)
    {
      const SearchRow *row = &g_array_index (result->rows, SearchRow,
                                             g_array_index (result->top, guint, i));
      top[i].row = row;
      top[i].pred = search_candidate_predict (space, row->index,
                                              i == 0 && o->trace_best != NULL, &error);
      if (top[i].pred == NULL)
        status = cli_fail (CLI_EXIT_FAILURE, "%s", error->message);
      /* the rows below #1 are printed and stored from their figures (result, memory, plan):
       * their step program and rank layout go now. Kept, --top 1000 of Llama 3 405B at
       * TP8 PP16 on 16,384 GPUs held about 19 MB each, 19 GiB in all. The program stays
       * where the JSON reads it (CPU offload). */
      else if (i > 0)
        {
          SimPrediction *p = top[i].pred;
          if (p->program != NULL && p->program->plan.cpu_offload_layers == 0)
            {
              g_clear_pointer (&p->program, prog_program_free);
              g_clear_pointer (&p->layout, plan_layout_free);
            }
        }
      top[i].flags = search_candidate_flags (space, row->index, o->extra->str);
    }
  if (status == CLI_EXIT_OK && o->trace_best)
    {
      const SimPrediction *p = top[0].pred;
      g_autofree int *ranks = g_new (int, p->plan.pp);
      for (int s = 0; s < p->plan.pp; s++)
        {
          PlanCoord c = { { 0 } };
          c.coord[PLAN_AXIS_PP] = s;
          ranks[s] = plan_layout_rank_of (p->layout, &c);
        }
      /* with the memory counters, as predict --trace writes it */
      if (!prog_trace_write_memory (p->program, p->result->times, ranks, "predicted",
                                    &p->memory, o->trace_best, &error))
        {
          /* the path was checked before: losing the trace must not lose the answer */
          cli_fail (CLI_EXIT_FAILURE, "%s", error->message);
          g_clear_error (&error);
          trace_failed = TRUE;
        }
    }

  /* the rule of thumb at the best plan's size */
  g_autoptr (SimPrediction) recipe = NULL;
  g_autofree char *recipe_flags = NULL, *recipe_why = NULL;
  if (status == CLI_EXIT_OK)
    {
      Plan rp;
      if (search_recipe (space, top[0].pred->plan.world_size, &rp, &recipe_why))
        {
          g_autoptr (GError) rerr = NULL;
          recipe = sim_predict (spec->model, &rp, spec->cluster, &spec->sim, &rerr);
          recipe_flags = search_plan_flags (space, &rp, o->extra->str);
          if (recipe == NULL)
            recipe_why = g_strdup_printf ("the rule's plan did not simulate: %s",
                                          rerr->message);
          plan_clear (&rp);
        }
    }

  gint64 run_id = -1;
  g_autofree char *store_error = NULL;
  g_autofree char *fallback = NULL;   /* named once: the JSON names the file written */
  g_autofree char *fallback_error = NULL;
  g_autoptr (JsonNode) root = NULL;
  const char *db = o->db ? o->db : "tandem.db";
  if (status == CLI_EXIT_OK && !o->no_db && o->json)
    {
      run_id = store_search (db, o->db_timeout_ms, space, result, top[0].pred, o->note,
                             o->extra->str, o->stack_stored, &error);
      if (run_id < 0)
        store_error = g_strdup (error->message), g_clear_error (&error);
    }
  g_autofree char *json_text = NULL;
  if (status == CLI_EXIT_OK)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "objective");
      json_builder_add_string_value (b, search_objective_name (spec->objective));
      json_builder_set_member_name (b, "mode");
      json_builder_add_string_value (b, search_mode (spec));
      json_builder_set_member_name (b, "top");
      json_builder_begin_array (b);
      for (guint i = 0; i < n_top; i++)
        json_builder_add_value (b, prediction_node (top[i].pred, (int) i + 1, top[i].flags, o));
      json_builder_end_array (b);
      add_counts_json (b, result);
      json_builder_set_member_name (b, "recipe");
      if (recipe)
        json_builder_add_value (b, prediction_node (recipe, 0, recipe_flags, o));
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "recipe_reason");
      if (recipe)
        json_builder_add_null_value (b);
      else
        json_builder_add_string_value (b, recipe_why ? recipe_why : "no rule-of-thumb plan");
      /* the top plans within tandem's measured error of #1 (tie_band) */
      {
        double t;
        g_autofree char *note = NULL;
        guint k = tie_band (search_space_spec (space), top, n_top, &t, &note);
        json_builder_set_member_name (b, "within_error");
        json_builder_begin_object (b);
        json_builder_set_member_name (b, "typical_error_pct");
        if (isfinite (t))
          json_builder_add_double_value (b, round (t * 1000) / 1000);
        else
          json_builder_add_null_value (b);
        json_builder_set_member_name (b, "tied_with_best");
        json_builder_add_int_value (b, k);
        json_builder_set_member_name (b, "note");
        json_builder_add_string_value (b, note);
        json_builder_end_object (b);
      }
      json_builder_set_member_name (b, "wall_s");
      json_builder_add_double_value (b, result->wall_s);
      json_builder_set_member_name (b, "run_id");
      if (run_id > 0)
        json_builder_add_int_value (b, run_id);
      else
        json_builder_add_null_value (b);
      if (store_error || o->no_db)
        {
          json_builder_set_member_name (b, "store_error");
          json_builder_add_string_value (b, store_error ? store_error : "--no-db");
        }
      if (o->trace_best && !trace_failed)
        {
          json_builder_set_member_name (b, "trace");
          json_builder_add_string_value (b, o->trace_best);
        }
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      /* --json stored first: the fallback is written before the JSON that names it */
      if (store_error)
        {
          fallback = cli_fallback_write ("search", root, &error);
          if (fallback == NULL)
            fallback_error = g_strdup (error->message), g_clear_error (&error);
        }
      g_autoptr (JsonGenerator) gen = json_generator_new ();
      json_generator_set_root (gen, root);
      json_generator_set_pretty (gen, TRUE);
      json_text = json_generator_to_data (gen, NULL);
      if (o->json)
        puts (json_text);
      else
        print_text (space, result, top, n_top, recipe, recipe_flags, recipe_why,
                    trace_failed ? NULL : o->trace_best, o->stack_name, o->extrapolated);
    }
  if (status == CLI_EXIT_OK && !o->no_db && !o->json)
    {
      run_id = store_search (db, o->db_timeout_ms, space, result, top[0].pred, o->note,
                             o->extra->str, o->stack_stored, &error);
      if (run_id > 0)
        {
          g_autofree char *shown = cli_printable (db, NULL);
          printf ("stored as run %" G_GINT64_FORMAT " in %s\n", run_id, shown);
        }
      else
        store_error = g_strdup (error->message), g_clear_error (&error);
    }
  if (status == CLI_EXIT_OK && store_error)
    {
      if (fallback == NULL && fallback_error == NULL)
        {
          json_object_set_null_member (json_node_get_object (root), "run_id");
          json_object_set_string_member (json_node_get_object (root), "store_error",
                                         store_error);
          fallback = cli_fallback_write ("search", root, &error);
          if (fallback == NULL)
            fallback_error = g_strdup (error->message), g_clear_error (&error);
        }
      if (!o->json)
        {
          if (fallback != NULL)
            printf ("not stored: %s; result written to %s\n", store_error, fallback);
          else
            printf ("not stored: %s; the result could not be written elsewhere either: %s\n",
                    store_error, fallback_error);
        }
      status = cli_fail (CLI_EXIT_FAILURE, "the search was not stored: %s; %s%s (hint: --db "
                         "FILE elsewhere, or --no-db)", store_error,
                         fallback ? "result written to " : "the fallback file failed too: ",
                         fallback ? fallback : fallback_error);
    }
  if (status == CLI_EXIT_OK && trace_failed)
    status = CLI_EXIT_FAILURE;
  for (guint i = 0; i < n_top; i++)
    {
      sim_prediction_free (top[i].pred);
      g_free (top[i].flags);
    }
  return status;
}

int
cli_cmd_search (int argc, char **argv)
{
  /* an interrupt while --trace-best is written ends the command after the file's rename,
   * never with its NAME.XXXXXX (hundreds of MB) left behind */
  util_output_guard_signals ();
  Opts o;
  memset (&o, 0, sizeof o);
  search_spec_init (&o.spec);
  o.db_timeout_ms = RES_BUSY_TIMEOUT_MS;
  o.timeout_s = 30.0;
  o.extra = g_string_new (NULL);
  int status = CLI_EXIT_OK;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) rest = g_ptr_array_new_with_free_func (g_free);
  int mpi_rank = 0, mpi_size = 1;
  gboolean mpi_on = FALSE;
  saved_stderr = quiet_other_ranks ();

  g_autofree GOptionEntry *own = search_entries_new ();
  const GOptionEntry *const tables[] = { own, plan_option_entries (), NULL };
  if (!cli_options_check_values (tables, argc, argv, &error)
      || !split_args (&o, argc, argv, rest, &error) || !sharding_agrees (&o, &error))
    {
      /* a message with its own hint needs no second one */
      status = cli_fail (CLI_EXIT_USAGE, "%s%s", error->message,
                         strstr (error->message, "hint: ") ? ""
                                                           : " (hint: tandem search --help)");
      goto out;
    }
  if (o.help)
    {
      fputs (usage_text, stdout);
      goto out;
    }
  {
    g_autoptr (GOptionContext) octx = g_option_context_new (NULL);
    GOptionGroup *group = plan_option_group_new (&o.spec.base, &o.args);
    g_option_context_set_main_group (octx, group);
    g_option_context_set_help_enabled (octx, FALSE);
    /* GOption reorders and drops pointers of the array it parses: give it a copy */
    int rc = (int) rest->len - 1;
    g_autofree char **keep = g_memdup2 (rest->pdata, sizeof (char *) * rest->len);
    char **rv = keep;
    if (!g_option_context_parse (octx, &rc, &rv, &error))
      {
        /* an unknown flag: the nearest of the plan flags and the search's own */
        g_autoptr (GPtrArray) more = g_ptr_array_new_with_free_func (g_free);
        for (guint i = 0; i < G_N_ELEMENTS (flags); i++)
          for (int k = 0; k < 3 && flags[i].names[k]; k++)
            if (strlen (flags[i].names[k]) > 1)
              g_ptr_array_add (more, g_strconcat ("--", flags[i].names[k], NULL));
        g_ptr_array_add (more, NULL);
        g_autofree char *text = cli_options_error_text (octx, error, "tandem search",
                                                        (const char *const *) more->pdata);
        status = cli_fail (CLI_EXIT_USAGE, "%s", text);
        goto out;
      }
    if (rc > 1)
      {
        status = cli_fail (CLI_EXIT_USAGE, "unexpected argument '%s' (hint: tandem search "
                           "--help)", rv[1]);
        goto out;
      }
  }
  if (o.args.plan_file)
    {
      status = cli_fail (CLI_EXIT_USAGE, "--plan FILE fixes a whole plan; search takes the "
                         "model, cluster and batch as flags (hint: drop --plan)");
      goto out;
    }
  if (!search_base_check (&o.spec.base, &error))
    {
      status = cli_fail (CLI_EXIT_USAGE, "%s", error->message);
      goto out;
    }
  {
    const char *model = o.args.model_name ? o.args.model_name : CLI_DEFAULT_MODEL;
    const char *cluster = o.args.cluster_name ? o.args.cluster_name : CLI_DEFAULT_CLUSTER;
    o.spec.model = cli_model_lookup (model, &error);
    if (o.spec.model == NULL)
      {
        g_autofree char *text = cli_lookup_error_text (error, model);
        status = cli_fail (cli_status_for_error (error), "%s", text);
        goto out;
      }
    o.spec.cluster = topo_cluster_lookup (cluster, &error);
    if (o.spec.cluster == NULL)
      {
        g_autofree char *text = cli_lookup_error_text (error, cluster);
        status = cli_fail (cli_status_for_error (error), "%s", text);
        goto out;
      }
    /* the model as the plan runs it (--num-experts on a dense model: plan.h) */
    if (!plan_model_apply_moe (&o.spec.base, &o.spec.model, &error))
      {
        status = cli_fail (CLI_EXIT_USAGE, "%s", error->message);
        goto out;
      }
    /* an option of MoE layers on a dense model holds for every candidate: refused once,
     * as predict refuses it (every candidate was counted invalid with the MoE overlap's
     * own reason, "only supported with expert parallelism") */
    const char *moe_flag = plan_moe_option_flag (&o.spec.base);
    if (!model_spec_is_moe (o.spec.model) && moe_flag != NULL)
      {
        status = cli_fail (CLI_EXIT_USAGE, "%s is an option of mixture-of-experts layers, and "
                           "%s is dense (hint: drop it, or give --num-experts N to make its "
                           "MLPs experts)", moe_flag, o.spec.model->name);
        goto out;
      }
  }
  /* a margin that leaves no memory is a contradiction, not a space out of memory */
  if (o.spec.headroom_bytes >= (double) o.spec.cluster->device.hbm_bytes)
    {
      const TopoDevice *dev = &o.spec.cluster->device;
      g_autofree char *hbm = g_strdup (cli_fmt_bytes ((double) dev->hbm_bytes));
      status = cli_fail (CLI_EXIT_USAGE, "--memory-headroom %s leaves nothing of the %s of HBM "
                         "of %s (hint: a margin below %s)",
                         cli_fmt_bytes (o.spec.headroom_bytes), hbm, dev->name, hbm);
      goto out;
    }
  /* a precision the device lacks holds for every candidate: one line and exit 2, not a
   * space counted invalid with a hint to add GPUs */
  if (!plan_check_precision (&o.spec.base, o.spec.cluster, &error))
    {
      status = cli_fail (CLI_EXIT_USAGE, "%s", error->message);
      goto out;
    }
  if (o.spec.base.world_size > 0 && o.spec.gpus == NULL)
    {
      o.spec.gpus = g_array_new (FALSE, FALSE, sizeof (int));
      g_array_append_val (o.spec.gpus, o.spec.base.world_size);
    }
  sim_options_init (&o.spec.sim, o.spec.cluster);
  if (o.fast)
    search_spec_fast (&o.spec, FALSE);
  {
    /* --framework: the software stack is an input, not a dimension (docs/contracts.md):
     * its cost knobs go into every prediction and the space keeps only the options it
     * offers (TP-comm overlap, HSDP) */
    g_autoptr (FwStack) stack = cli_stack_lookup (o.framework, &error);
    if (stack == NULL)
      {
        g_autofree char *text = cli_lookup_error_text (error, o.framework);
        status = cli_fail (CLI_EXIT_USAGE, "--framework: %s", text);
        goto out;
      }
    sim_cost_options_init_stack (&o.spec.sim.cost, o.spec.cluster, stack);
    o.stack_name = g_strdup (stack->name);
    o.stack_stored = g_strdup (fw_stack_stored_name (stack));
    o.extrapolated = o.spec.sim.cost.extrapolated;
    o.perf_sigma = o.spec.sim.cost.perf_sigma;
    /* the space keeps only the options the stack offers (search_spec_set_stack, shared
     * with `tandem report scaling --plan-per-size search`) */
    /* --async-tp is the stack's TP overlap switched on (search_cand_to_plan sets it with
     * the TP-overlap dimension): it fixes that dimension, as --tp-comm-overlap does, and
     * each candidate's flags say it where the candidate has it (it is kept out of the
     * typed flags every line carries, above). It was copied into every
     * candidate's flags while half of them ran without it (their predict line gave
     * another step time). */
    if (o.spec.base.async_tp)
      {
        if (o.spec.tp_overlap_mask == 1)
          {
            status = cli_fail (CLI_EXIT_USAGE, "--async-tp and --no-tp-comm-overlap contradict "
                               "each other (hint: give one to fix TP overlap, neither to "
                               "search both)");
            goto out;
          }
        if (stack->async_tp == FW_OPT_NO)
          {
            status = cli_fail (CLI_EXIT_USAGE, "--async-tp: the %s stack has no async TP "
                               "(hint: --tp-comm-overlap for its own TP overlap, or "
                               "--framework torchtitan)", stack->name);
            goto out;
          }
        if (!o.spec.base.compile && stack->compile != FW_OPT_DEFAULT)
          {
            status = cli_fail (CLI_EXIT_USAGE, "--async-tp: async TP needs a compiled model "
                               "(TorchTitan refuses enable_async_tensor_parallel without "
                               "compiling the model) (hint: add --compile)");
            goto out;
          }
        o.spec.tp_overlap_mask = 2;
        o.spec.base.async_tp = FALSE;
      }
    if (!search_spec_set_stack (&o.spec, stack, &error))
      {
        status = cli_fail (CLI_EXIT_USAGE, "%s", error->message);
        goto out;
      }
    if (o.framework)
      {
        /* quoted as the other values are: a stack file's path with a blank ran another
         * command when the line was pasted */
        g_string_append (o.extra, o.extra->len ? " --framework" : "--framework");
        util_append_shell_word (o.extra, o.framework);
      }
  }

  /* every output checked before the work (as predict does): the trace path, a place for
   * the result should the store refuse it */
  if (o.trace_best && !util_output_check (o.trace_best, &error))
    {
      status = cli_fail (CLI_EXIT_USAGE, "--trace-best: %s", error->message);
      goto out;
    }
  const char *const inputs[] = { "--model", o.args.model_name, "--cluster",
                                 o.args.cluster_name, "--plan", o.args.plan_file,
                                 "--framework", o.framework, NULL };
  if (o.trace_best
      && (!cli_output_not_input ("--trace-best", "trace", o.trace_best, inputs, &error)
          || !cli_output_not_db ("--trace-best", "trace", o.trace_best, o.db, o.no_db, &error)))
    {
      status = cli_fail (CLI_EXIT_USAGE, "%s", error->message);
      goto out;
    }
  if (!cli_db_choice_check (o.db, o.no_db, &error))
    {
      status = cli_fail (CLI_EXIT_USAGE, "%s", error->message);
      goto out;
    }
  if (!o.no_db && !cli_fallback_check (&error))
    {
      status = cli_fail (CLI_EXIT_FAILURE, "%s", error->message);
      goto out;
    }

#if HAVE_MPI
  if (mpi_size_from_env () > 1)
    {
      int provided;
      if (MPI_Init_thread (NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
        {
          status = cli_fail (CLI_EXIT_FAILURE, "MPI_Init_thread failed (hint: run without "
                             "mpirun, or check the MPI installation)");
          goto out;
        }
      mpi_on = TRUE;
      MPI_Comm_rank (MPI_COMM_WORLD, &mpi_rank);
      MPI_Comm_size (MPI_COMM_WORLD, &mpi_size);
      live_start (mpi_rank, mpi_size, o.timeout_s, provided >= MPI_THREAD_MULTIPLE);
    }
#endif
  status = run_search (&o, mpi_rank, mpi_size);
#if HAVE_MPI
  if (mpi_on)
    {
      mpi_end (mpi_rank, status);
      live_end ();
      MPI_Finalize ();
    }
#endif
out:
  (void) mpi_on;
  stderr_restore (&saved_stderr);
  opts_clear (&o);
  return status;
}
