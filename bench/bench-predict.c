/* bench/bench-predict.c - how long one `tandem predict` takes for planning-scale plans.
 *
 * The reference case is the issue's: Llama-3 405B on 16,384 H100s of h100-24k, TP8 PP16
 * DP128, seq 8192, global batch 2048, micro-batch 1 (16 micro-batches), 126 layers as
 * 7 + 14 x 8 + 7, 1F1B. Target: at most 5 ms per prediction (Calculon takes 14 ms per
 * evaluation; SimAI's analytical mode 70 ms). Issue 11 item 5(c): the README's main job
 * (scripts/main.sh: VPP2, 3 layers on the first and last stage, ZeRO-2, rank order
 * tp-cp-ep-pp-dp) at 16 micro-batches in <= 2 ms, and at 256 (gbs 32,768) at most twice
 * that (the steady-state path). The time covers everything after the
 * model and cluster are loaded: plan resolution, layout, step program, simulation and
 * memory. ("main job" is the plan scripts/main.sh ran when the issue was written; it now
 * runs the paper's V = 8 with the embedding and loss in the split, 3.0 times the tasks at
 * 256 micro-batches as at 16, like these rows.) Each row checks its result first (a
 * positive step time and every task simulated), then reports the best and median of --reps runs, taken in turns with the
 * other rows selected (one run of each per repetition), so that a row and its pair see
 * the same load on a shared machine. With both main-job rows
 * (and both rows of the issue's 1F1B plan), a last line gives the 256-micro-batch row over
 * the 16-micro-batch one (best over best, median over median): the target's ratio, from
 * one run, and the ratio of the tasks each simulated, which the times follow (the part
 * of the ratio that no measurement noise moves: sim/predict.c predict_steady says why the
 * main job's is 2.98).
 *
 * --random N instead times N random 1F1B plans (drawn from --seed S; random_case below;
 * --interleaved: the same draws with vpp 2 or 4),
 * each the best of --reps, one line each and their total: how a change to the
 * steady-state path (sim/predict.c predict_steady's trial steps) moves planning-scale
 * 1F1B predictions as a whole, run alternately against the binary before it. The plans
 * are the dataflow 1F1B; --sync draws the same plans with Megatron-Core's synchronize
 * after each exchange, as tandem predict runs a 1F1B plan with its default stack (the
 * two settle differently: the 24th round's trial skip, measured without --sync only,
 * cost the synchronized plans 1.8-4 times the events).
 *
 *   bench-predict [--json] [--reps R] [--case SUBSTRING] [--full-simulation]
 *   bench-predict --random N [--seed S] [--reps R] [--sync] [--interleaved]
 *
 * "sim'd" is the tasks of the simulation whose result is reported; "in all" adds every
 * shorter step tried that showed no period (SimResult sim_tasks): the work done.
 */
#include "sim/predict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *name;
  const char *model;
  int world, tp, pp, cp, vpp, gbs, seq, first, last;
  gboolean main_job;   /* scripts/main.sh's plan: ZeRO-2, rank order tp-cp-ep-pp-dp */
  gboolean no_slowdown; /* --cost comm_compute_slowdown=0 */
  int pair;             /* 1 the main job, 2 the issue's 1F1B plan, 3 the same plan
                         * synchronized: its m16 and m256 rows, whose ratio the last lines
                         * give */
  int ep;               /* > 1: a MoE plan as published row 722 runs it (expert tp 1, the
                         * flex dispatcher, embedding and loss in the pipeline split) */
  gboolean combined;    /* --overlap-moe-expert-parallel-comm (combined 1F1B) */
  gboolean sync;        /* Megatron-Core's synchronize after each pipeline exchange (plan.h
                         * pp_p2p_sync 1, the megatron-core and nemo stacks' default, as
                         * tandem predict runs a 1F1B plan); else the dataflow 1F1B */
} BenchCase;

static const BenchCase cases[] = {
  /* the README's main job (scripts/main.sh) at 16 micro-batches, and at 256 (gbs 32,768):
   * issue 11's targets, <= 2 ms and at most twice that */
  { "main job 405b VPP2 m16", "llama3-405b", 16384, 8, 16, 1, 2, 2048, 8192, 3, 3, TRUE,
    FALSE, 1 },
  { "main job 405b VPP2 m256", "llama3-405b", 16384, 8, 16, 1, 2, 32768, 8192, 3, 3, TRUE,
    FALSE, 1 },
  { "llama3-405b 16k TP8 PP16 DP128 1F1B m256", "llama3-405b", 16384, 8, 16, 1, 1, 32768, 8192,
    7, 7, FALSE, FALSE, 2 },
  /* the same without the comm/compute slowdown: it repeats every 11 micro-batches from
   * micro-batch ~12, seen while the whole step is simulated (predict.c) */
  { "llama3-405b 1F1B m256 no slowdown", "llama3-405b", 16384, 8, 16, 1, 1, 32768, 8192, 7, 7,
    FALSE, TRUE },
  { "llama3-405b 16k TP8 PP16 DP128 1F1B", "llama3-405b", 16384, 8, 16, 1, 1, 2048, 8192, 7, 7,
    FALSE, FALSE, 2 },
  /* the issue's 1F1B plan as tandem predict runs it (megatron-core: a synchronize after
   * each exchange): it repeats every micro-batch from the first step tried (18) */
  { "llama3-405b 1F1B sync m16", "llama3-405b", 16384, 8, 16, 1, 1, 2048, 8192, 7, 7,
    FALSE, FALSE, 3, 0, FALSE, TRUE },
  { "llama3-405b 1F1B sync m256", "llama3-405b", 16384, 8, 16, 1, 1, 32768, 8192, 7, 7,
    FALSE, FALSE, 3, 0, FALSE, TRUE },
  { "llama3-405b 16k TP8 PP16 DP128 VPP2", "llama3-405b", 16384, 8, 16, 1, 2, 2048, 8192, 3, 3 },
  { "llama3-405b 16k TP8 CP16 PP16 DP8", "llama3-405b", 16384, 8, 16, 16, 1, 128, 131072, 7, 7 },
  { "llama3-70b 1k TP8 PP4 DP32", "llama3-70b", 1024, 8, 4, 1, 1, 512, 8192, -1, -1 },
  { "llama3-8b 64 TP1 DP64", "llama3-8b", 64, 1, 1, 1, 1, 256, 8192, -1, -1 },
  /* published row 722's plan (Qwen3-235B-A22B on 256 H100s, TP2 PP8 VPP4 EP32, 128
   * micro-batches) with combined 1F1B, as measured, and without: the cost of pairing the
   * units (plan/program.c expand_pair) is the difference */
  { "qwen3-235b TP2 PP8 VPP4 EP32 combined 1F1B", "qwen3-235b-a22b", 256, 2, 8, 1, 4, 2048,
    4096, -1, -1, FALSE, FALSE, 0, 32, TRUE },
  { "qwen3-235b TP2 PP8 VPP4 EP32", "qwen3-235b-a22b", 256, 2, 8, 1, 4, 2048, 4096, -1, -1,
    FALSE, FALSE, 0, 32, FALSE },
};

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* One prediction of case `bc`, timed from the plan's set-up to its result (the model and
 * cluster are loaded once): milliseconds, or -1 with the reason on stderr. Where
 * `check` is given, it receives the result's counts and whether the result is wrong (a
 * step time that is not positive, or not every task simulated once where nothing was
 * extended; fewer events than tasks where the steady state was). */
typedef struct {
  guint    tasks;
  guint64  events, fired, work;   /* work: tasks simulated in all (SimResult sim_tasks) */
  double   step;
  int      wrong;
} CaseCheck;

/* Case bc's plan, unresolved (plan_clear it) */
static void
case_plan (const BenchCase *bc, Plan *plan)
{
  plan_init_defaults (plan);
  plan->world_size = bc->world;
  plan->tp = bc->tp, plan->pp = bc->pp, plan->cp = bc->cp, plan->vpp = bc->vpp;
  plan->global_batch = bc->gbs;
  plan->seq_length = bc->seq;
  /* the main job's first and last model chunk (tandem's chunk split; with vpp 1 the same
   * as Megatron's stage split) */
  plan->first_chunk_layers = bc->first;
  plan->last_chunk_layers = bc->last;
  plan->sequence_parallel = bc->tp > 1;
  plan->sharding = bc->main_job ? PLAN_SHARD_ZERO2 : PLAN_SHARD_ZERO1;
  if (bc->main_job)
    {
      g_free (plan->rank_order);
      plan->rank_order = g_strdup ("tp-cp-ep-pp-dp");
    }
  plan->overlap_grad_reduce = TRUE;
  plan->overlap_param_gather = TRUE;
  if (bc->sync)
    plan->pp_p2p_sync = 1;
  if (bc->cp > 1)
    plan->cp_comm = PLAN_CP_ALLGATHER;
  if (bc->ep > 1)
    {
      plan->ep = bc->ep;
      plan->etp = 1;
      plan->moe_dispatcher = PLAN_MOE_FLEX;
      plan->account_embedding = plan->account_loss = TRUE;
      plan->moe_a2a_overlap = bc->combined;
    }
}

static double
run_case (const BenchCase *bc, const ModelSpec *model, const TopoCluster *cluster,
          gboolean full, CaseCheck *check)
{
  g_autoptr (GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  Plan plan;
  case_plan (bc, &plan);
  if (!plan_resolve (&plan, model, cluster, &error))
    {
      fprintf (stderr, "bench-predict: %s: %s\n", bc->name, error->message);
      plan_clear (&plan);
      return -1;
    }
  /* the stack-dependent plan fields as with no options (the defaults of none), so
   * that --full-simulation changes nothing but the path */
  sim_plan_apply_stack (&plan, NULL);
  SimOptions opts;
  sim_options_init (&opts, cluster);
  opts.full_simulation = full;
  if (bc->no_slowdown)
    opts.cost.comm_compute_slowdown = 0;
  SimPrediction *p = sim_predict (model, &plan, cluster, &opts, &error);
  gint64 t1 = g_get_monotonic_time ();
  if (p == NULL)
    {
      fprintf (stderr, "bench-predict: %s: %s\n", bc->name, error->message);
      plan_clear (&plan);
      return -1;
    }
  if (check != NULL)
    {
      const SimResult *r = p->result;
      check->tasks = r->n_tasks;
      check->events = r->n_events;
      check->fired = r->n_fired;
      check->work = r->sim_tasks;
      check->step = r->step_time_s;
      check->wrong = !(r->step_time_s > 0) || (r->steady_periods == 0 ? r->n_events != r->n_tasks
                                                                        : r->n_events >= r->n_tasks);
    }
  sim_prediction_free (p);
  plan_clear (&plan);
  return (double) (t1 - t0) / 1e3;
}

/* A random 1F1B plan on h100-24k (the draws of --random): one of four dense models (its
 * own sequence length), pp 2, 4, 8 or 16, tp 4 or 8 (1-8 for the 8B), dp 8, 32-512
 * micro-batches of one sequence; the layers even where pp divides them, and in a third
 * of those one fewer on the first and last stage; where pp does not divide them, the
 * middle stages take the rounded-up share and the first and last split the rest evenly.
 * FALSE (draw again) where no such split exists. */
static gboolean
random_case (GRand *rng, BenchCase *bc)
{
  static const char *const models[] = { "llama3-405b", "llama3-70b", "gpt3-175b", "llama3-8b" };
  static const int layers[] = { 126, 80, 96, 32 };
  static const int seqs[] = { 8192, 8192, 2048, 8192 };
  static const int pps[] = { 2, 4, 8, 16 };
  static const int tps[] = { 1, 2, 4, 8 };
  static const int ms[] = { 32, 64, 128, 256, 512 };
  int mi = g_rand_int_range (rng, 0, 4);
  int pp = pps[g_rand_int_range (rng, 0, 4)];
  int tp = tps[g_rand_int_range (rng, mi == 3 ? 0 : 2, 4)];
  int m = ms[g_rand_int_range (rng, 0, 5)];
  int dp = 8, n = layers[mi], first = -1, last = -1;
  gboolean fewer_at_ends = g_rand_int_range (rng, 0, 3) == 1;
  if (n % pp == 0)
    {
      if (fewer_at_ends && pp > 2 && n / pp > 2)
        first = last = n / pp - 1;   /* the middle stages take the two left over */
    }
  else
    {
      int mid = (n + pp - 1) / pp, rest = n - (pp - 2) * mid;
      if (pp == 2 || rest < 2 || rest % 2 != 0)
        return FALSE;
      first = last = rest / 2;
    }
  if (first > 0 && (n - first - last) % (pp - 2) != 0)
    return FALSE;
  *bc = (BenchCase) { "random", models[mi], tp * pp * dp, tp, pp, 1, 1, m * dp, seqs[mi],
                      first, last };
  return TRUE;
}

/* Whether case bc's plan passes plan_resolve (an interleaved draw whose stages the vpp
 * does not divide is drawn again rather than failing the run). */
static gboolean
case_resolves (const BenchCase *bc, const ModelSpec *model, const TopoCluster *cluster)
{
  Plan plan;
  case_plan (bc, &plan);
  gboolean ok = plan_resolve (&plan, model, cluster, NULL);
  plan_clear (&plan);
  return ok;
}

/* --random: n random plans, each checked, then the best of `reps` */
static int
run_random (int n, int seed, int reps, gboolean sync, gboolean inter, const TopoCluster *cluster)
{
  g_autoptr (GRand) rng = g_rand_new_with_seed ((guint32) seed);
  double total = 0;
  int done = 0;
  const char *what = inter ? "interleaved 1F1B" : "1F1B";
  printf ("# random %-45s %8s %8s %8s\n", what, "best_ms", "sim'd", "in all");
  for (int draws = 0; done < n && draws < 100 * n; draws++)
    {
      BenchCase bc;
      if (!random_case (rng, &bc))
        continue;
      bc.sync = sync;
      g_autoptr (GError) error = NULL;
      g_autoptr (ModelSpec) model = model_spec_lookup (bc.model, &error);
      g_assert_no_error (error);
      if (inter)
        {
          /* vpp 2 or 4, drawn after the 1F1B plan (the same draws as without
           * --interleaved);
           * a plan whose stages vpp does not divide is drawn again */
          bc.vpp = g_rand_int_range (rng, 0, 2) ? 4 : 2;
          if (bc.pp < 4 || !case_resolves (&bc, model, cluster))
            continue;
        }
      CaseCheck c;
      if (run_case (&bc, model, cluster, FALSE, &c) < 0 || c.wrong)
        return 1;
      double best = G_MAXDOUBLE;
      for (int r = 0; r < reps; r++)
        best = MIN (best, run_case (&bc, model, cluster, FALSE, NULL));
      g_autofree char *name = g_strdup_printf ("%s tp%d pp%d vpp%d m%d first %d last %d",
                                               bc.model, bc.tp, bc.pp, bc.vpp, bc.gbs / 8,
                                               bc.first, bc.last);
      printf ("  %-52s %8.3f %8" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT "\n", name, best,
              c.events, c.work);
      total += best;
      done++;
    }
  printf ("# %d random %s plans (seed %d%s): %.2f ms in all, the best of %d each\n", done,
          what, seed, sync ? ", synchronized" : "", total, reps);
  return done == n ? 0 : 1;
}

int
main (int argc, char **argv)
{
  gboolean json = FALSE, full = FALSE;
  int reps = 21;
  g_autofree gchar *only = NULL;   /* GOption allocates it */
  int random_n = 0, seed = 1;
  gboolean sync = FALSE, inter = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "JSON rows", NULL },
    { "reps", 0, 0, G_OPTION_ARG_INT, &reps, "Timed repetitions per case (default 21)", "R" },
    { "case", 0, 0, G_OPTION_ARG_STRING, &only, "Only the case named S, else the cases whose "
      "name contains S (to profile one)", "S" },
    { "random", 0, 0, G_OPTION_ARG_INT, &random_n, "Time N random 1F1B plans instead of the "
      "cases (each the best of --reps)", "N" },
    { "seed", 0, 0, G_OPTION_ARG_INT, &seed, "The random plans' seed (default 1)", "S" },
    { "sync", 0, 0, G_OPTION_ARG_NONE, &sync, "The random plans with Megatron-Core's "
      "synchronize after each pipeline exchange (the megatron-core and nemo stacks' 1F1B, as "
      "tandem predict runs it); else the dataflow 1F1B", NULL },
    { "interleaved", 0, 0, G_OPTION_ARG_NONE, &inter, "The random plans interleaved (vpp 2 "
      "or 4, pp 4-16, where vpp divides every stage's layers)", NULL },
    { "full-simulation", 0, 0, G_OPTION_ARG_NONE, &full, "Simulate every micro-batch (no "
      "steady-state path), as tandem predict --full-simulation", NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) octx = g_option_context_new (NULL);
  g_option_context_add_main_entries (octx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (octx, &argc, &argv, &error) || reps < 1 || random_n < 0)
    {
      fprintf (stderr, "bench-predict: %s\n", error ? error->message
                                                    : reps < 1 ? "--reps must be >= 1"
                                                               : "--random must be >= 1");
      return 2;
    }
  g_autoptr (TopoCluster) cluster = topo_cluster_lookup ("h100-24k", &error);
  if (cluster == NULL)
    {
      fprintf (stderr, "bench-predict: %s\n", error->message);
      return 1;
    }
  if (random_n > 0)
    return run_random (random_n, seed, reps, sync, inter, cluster);
  if (!json)
    printf ("# %-40s %8s %8s %8s %8s %10s %10s %9s %7s\n", "case", "tasks", "sim'd", "in all",
            "events", "best_ms", "median_ms", "step_s", "wrong");
  else
    printf ("[\n");
  int failures = 0, n_printed = 0;
  gboolean exact = FALSE;   /* --case names one case exactly (some names hold others) */
  for (guint i = 0; i < G_N_ELEMENTS (cases) && only != NULL; i++)
    exact = exact || g_str_equal (cases[i].name, only);
  double pair_best[4][2] = { { 0 } }, pair_median[4][2] = { { 0 } };   /* [pair][m16, m256] */
  double pair_simulated[4][2] = { { 0 } };   /* tasks simulated, the same pairs */
  /* the cases selected, each checked once (untimed), then timed in turns: repetition r
   * runs every case once, in the order of the table on even r and the reverse on odd r,
   * so that the rows (and the m256 / m16 ratios) see the same phases of a shared
   * machine's load rather than one row a quiet minute and the next a busy one */
  guint sel[G_N_ELEMENTS (cases)], n_sel = 0;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    if (only == NULL || (exact ? g_str_equal (cases[i].name, only)
                               : strstr (cases[i].name, only) != NULL))
      sel[n_sel++] = i;
  ModelSpec *models[G_N_ELEMENTS (cases)];
  CaseCheck checks[G_N_ELEMENTS (cases)];
  for (guint k = 0; k < n_sel; k++)
    {
      models[k] = model_spec_lookup (cases[sel[k]].model, &error);
      g_assert_no_error (error);
      if (run_case (&cases[sel[k]], models[k], cluster, full, &checks[k]) < 0)
        return 1;
    }
  double *ms = g_new (double, (gsize) MAX (n_sel, 1) * reps);
  for (int r = 0; r < reps; r++)
    for (guint j = 0; j < n_sel; j++)
      {
        guint k = r % 2 == 0 ? j : n_sel - 1 - j;
        double t = run_case (&cases[sel[k]], models[k], cluster, full, NULL);
        if (t < 0)
          return 1;
        ms[(gsize) k * reps + r] = t;
      }
  for (guint k = 0; k < n_sel; k++)
    {
      const BenchCase *bc = &cases[sel[k]];
      const CaseCheck *c = &checks[k];
      double *row = ms + (gsize) k * reps;
      qsort (row, reps, sizeof *row, cmp_double);
      failures += c->wrong;
      if (bc->pair > 0)
        {
          int h = bc->gbs > 2048;
          pair_best[bc->pair][h] = row[0];
          pair_median[bc->pair][h] = row[reps / 2];
          pair_simulated[bc->pair][h] = (double) c->work;
        }
      if (json)
        printf ("%s  {\"case\": \"%s\", \"tasks\": %u, \"simulated\": %" G_GUINT64_FORMAT
                ", \"simulated_in_all\": %" G_GUINT64_FORMAT ", \"events\": %" G_GUINT64_FORMAT
                ", \"best_ms\": %.3f, \"median_ms\": %.3f, "
                "\"step_s\": %.4f, \"wrong\": %d}", n_printed++ ? ",\n" : "", bc->name,
                c->tasks, c->events, c->work, c->fired, row[0], row[reps / 2], c->step, c->wrong);
      else
        printf ("  %-40s %8u %8" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT
                " %10.3f %10.3f %9.4f %7d\n", bc->name, c->tasks, c->events, c->work, c->fired,
                row[0], row[reps / 2], c->step, c->wrong);
      model_spec_unref (models[k]);
    }
  g_free (ms);
  if (json)
    printf ("\n]\n");
  else
    for (int k = 1; k <= 3; k++)
      if (pair_best[k][0] > 0 && pair_best[k][1] > 0)
        printf ("# %s m256 / m16: best %.2f, median %.2f, tasks simulated in all %.2f (issue 11 "
                "target: <= 2)\n", k == 1 ? "main job" : k == 2 ? "405b 1F1B" : "405b 1F1B sync",
                pair_best[k][1] / pair_best[k][0], pair_median[k][1] / pair_median[k][0],
                pair_simulated[k][1] / pair_simulated[k][0]);
  /* item 5(c) read the other way, "at most twice that" as twice its 2 ms (its "now"
   * figures are absolute times): an absolute figure, so a benchmark line, never a test */
  if (!json && pair_best[1][1] > 0)
    printf ("# main job m256: best %.2f ms, median %.2f ms against twice the 2 ms target "
            "(4 ms)\n", pair_best[1][1], pair_median[1][1]);
  return failures ? 1 : 0;
}
