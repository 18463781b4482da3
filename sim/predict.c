/* sim/predict.c - layout + program + simulation + memory, and their JSON. */
#include "sim/predict.h"
#include "sim/engine.h"

#include <math.h>

/* A program of the plan with mr micro-batches in place of m. */
static ProgProgram *
program_with (SimPrediction *p, int mr, GError **error)
{
  Plan reduced;
  plan_copy (&reduced, &p->plan);
  reduced.grad_accum = mr;
  reduced.global_batch = mr * p->plan.micro_batch * p->plan.dp;
  ProgProgram *prog = prog_program_new (p->model, &reduced, p->layout, error);
  plan_clear (&reduced);
  return prog;
}

/* The kept program stands for the whole step in its totals. */
static void
program_totals (SimPrediction *p, ProgProgram *prog, const SimResult *r)
{
  const Plan *plan = &p->plan;
  prog->tokens_per_step = (double) plan->global_batch * plan->seq_length;
  double hw = 0;
  for (int s = 0; s < r->n_stages; s++)
    hw += r->stages[s].hw_flops;
  prog->hw_flops_per_step = hw * plan->tp * plan->cp * plan->dp;
  p->program = prog;
}

/* One try of the steady-state path at m' = mr, counted in *tries: the result, or NULL
 * (with *error on a failure, else *cyclicity as sim_simulate_extended says). */
static SimResult *
steady_try (SimPrediction *p, int mr, int q, int max_multiple, int *cyclicity,
            const SimOptions *opts, int *tries, guint64 *work, GError **error)
{
  (*tries)++;
  const Plan *plan = &p->plan;
  double tokens = (double) plan->global_batch * plan->seq_length;
  ProgProgram *prog = program_with (p, mr, error);
  if (prog == NULL)
    return NULL;
  *work += prog->tasks->len;   /* simulated whole, whether it extends or not */
  SimResult *r = sim_simulate_extended (prog, plan->grad_accum - mr, q, max_multiple,
                                        cyclicity, tokens, p->cluster, p->layout, opts,
                                        error);
  if (r != NULL)
    program_totals (p, prog, r);
  else
    prog_program_free (prog);
  return r;
}

/* Whether the heaviest stage of the pipeline is a middle one (Llama-3 405B 7 + 14 x 8 +
 * 7), by forward FLOPs per token: its layers (model_spec_layer_fwd_flops_per_token, causal
 * attention) and on the last stage the output layer (2 x vocab x hidden; the embedding's
 * lookup and the loss move bytes, not FLOPs). Such a 1F1B pipeline settles into a period
 * of several micro-batches, late (above). */
static gboolean
middle_stage_heaviest (const SimPrediction *p)
{
  const Plan *plan = &p->plan;
  ModelLayerFlops lf;
  model_spec_layer_fwd_flops_per_token (p->model, plan->seq_length, &lf);
  const double layer = lf.gemm + lf.attention;
  const double out = 2.0 * (double) p->model->vocab * (double) p->model->hidden;
  double ends = MAX (plan_stage_layers (plan, p->model, 0) * layer,
                     plan_stage_layers (plan, p->model, plan->pp - 1) * layer + out);
  for (int s = 1; s < plan->pp - 1; s++)
    if (plan_stage_layers (plan, p->model, s) * layer > ends)
      return TRUE;
  return FALSE;
}

/* The steady-state path (simulate.c): the step with fewer micro-batches m' = m - d q,
 * enough for every stage to be in its 1F1B phase at once for a period and a little more,
 * simulated and extended by d periods. GPipe has no 1F1B phase, and a step that is not at
 * least twice the micro-batches simulated gains nothing: both are simulated whole. The
 * program kept is the shorter step's, with the whole step's totals.
 *
 * A 1F1B pipeline whose middle stages are the slowest (fewer layers on the first and last
 * stage: 4 + 8 + 8 + 4, or Llama-3 405B's 7 + 14 x 8 + 7) need not repeat every
 * micro-batch: its timeline settles into a period of c micro-batches (2 for 4 8 8 4; 11,
 * 3.17 s, for the 405B plan), the max-plus cyclicity of its critical circuits, and often
 * late. So periods of c = 1..2 pp micro-batches are tried, the smallest that recurs; the
 * extension needs m - m' to be a multiple of c, so a period seen on a step that is not
 * is tried once more on the next m' that is. Where the shorter steps show none, the whole
 * step is simulated and watched (sim_simulate_watched, steady_watch_probe below): a period
 * that shows in its first 3/8 (looked at every 1/16) is extended from a step of the
 * micro-batches it needs, and
 * the whole step's simulation stops there; the watching costs a few comparisons, not a
 * simulation. The 405B plan above does not settle within 256 micro-batches: a compute
 * kernel that starts next to a pipeline send is slowed by comm_compute_slowdown (Hopper's
 * fitted 0.175%: 4.47 us on the first attention block of a forward unit), which moves
 * that stage by as much; the sends it overlaps thin out over ~410 micro-batches (at 1,024
 * the step repeats every 11 micro-batches from micro-batch ~410 on). Without the slowdown
 * it repeats every 11 from micro-batch ~12 and is extended from a step of 47. */
static SimResult *
predict_steady (SimPrediction *p, const SimOptions *opts, int *tries, guint64 *work,
                GError **error)
{
  const Plan *plan = &p->plan;
  int m = plan->grad_accum, pp = plan->pp, v = MAX (plan->vpp, 1);
  /* DualPipe: simulated whole. Its micro-batch numbers are per direction (the second
   * half's start at m/2), so a step of fewer micro-batches does not repeat this one's
   * units shifted by q, which the extension needs (sched-dualpipe.c) */
  if (plan->schedule == PLAN_SCHED_GPIPE || plan->schedule == PLAN_SCHED_DUALPIPE || pp < 2)
    return NULL;
  /* several schedules a step (plan.h pp_schedules): simulated whole. The step is no one
   * schedule with a steady phase to extend; a shorter step of m' micro-batches would cut
   * the schedules (program.c step_slots) into other ones */
  if (plan_pp_schedules (plan) > 1)
    return NULL;
  gboolean inter = plan->schedule == PLAN_SCHED_INTERLEAVED_1F1B;
  int q = inter ? plan_vpp_group (plan) : 1;
  /* periods of several schedule periods: 1F1B only (the interleaved schedule's period is
   * already a group of micro-batches) */
  int max_c = inter ? 1 : 2 * pp;
  /* the first stage's warm-up, in forward units: it enters the steady phase last and
   * leaves it first (its cool-down is as long). The check (simulate.c) needs about one
   * period (P = 2 q v units) and the few units that overlap in time seen twice on every
   * stage at once: 1.5 periods of steady phase on the first stage leave half a period for
   * the pipeline to settle after the first backward; four and eight give a slower one
   * more time; 32 periods give a 1F1B pipeline that settles into a period of several
   * micro-batches room to show it twice (Llama-3 405B 7 + 14 x 8 + 7: a period of 11
   * from micro-batch ~12, seen on the step of 47 and extended from it by 19 periods at
   * 256: bench-predict's 1F1B m256 row 11.9 ms best against 44.2 ms watching the whole
   * step; a plan that shows none pays that step, 47 of its 256 micro-batches, before
   * the whole step is simulated and watched). A 1F1B step, whose period is one unit
   * pair, starts at six half-periods, three periods of steady phase on the first stage:
   * in 150 random 1F1B plans of GPT-3 175B and Llama 3 8B-405B (pp 2-16) three half-periods
   * (w0 + 2 micro-batches) never extended, eight (w0 + 4) extended 115 at once, and six
   * (w0 + 3) the same 115; the step of three had cost 40-45% of each prediction.
   * Interleaved, whose period is a whole group, extends at three in 57 of 77.
   *
   * How short the step tried can be: the check watches a whole period go by on every stage
   * at once, so stage 0's 1F1B phase must hold P units and the few that overlap in time,
   * between its warm-up of w0 forward units and its cool-down of as many backward ones,
   * and m' = m (mod q) keeps the step's last group: m' >= (2 w0 + P + a few) / (2 v),
   * rounded up in whole groups. The README's main job (VPP2 PP16, q 16: w0 46, P 64, a
   * stage 0 of 4 m' units) takes m' = 48: at 32 stage 0's 1F1B phase is 36 units, not a
   * period. On the step of 48, tau - T falls at stage 0's unit 54 (7 after its first
   * backward), tau at 118, and 28 units of the 1F1B phase are left before the cool-down
   * (146): not a second period to skip. So its m256 prediction simulates 2.98 times the
   * tasks of the m16 one (91,278 against 30,606; instructions 2.82 times, callgrind), and
   * no trial that watches a period can go below about 2.5 (a step of 40, were its last
   * group the step's): the m16 step, 64 units on stage 0, is shorter than that stage's
   * warm-up and cool-down together (92). Issue 11's 5(c) ratio of 2 needs a proof of the
   * period that does not watch one go by (the engine's slowdowns make the system only
   * piecewise max-plus), or a step tried at two thirds of a whole step's cost per task.
   * Neither is within reach (measured on the main job, --full-simulation at m = 16, 32,
   * 48, 64 and 256): every figure is affine in m from m = 32 on (the step of 256 from
   * those of 32 and 48 to 1.2e-8), so a step of 32 would do if it told one period's
   * increment of every figure, and it does not: stage s's 1F1B phase holds 36 + 4 s of
   * its units at m' = 32, less than a period and the units that overlap for s < 8. Their
   * increments taken from the nearest stage that shows one (8; 15 for stage 0) miss stage
   * 0's exposed PP time at m = 256 by 80% and its bubble by 43%; taken from the steps of
   * 16 and 32, stage 3's exposed PP time by 450% (24 of 208 figures beyond 0.1%). And the
   * trial of 48 without its statistics and check (events 15.90 M, set-up 10.20 M, program
   * 5.50 M instructions, callgrind; 17.35, 11.71 and 5.72 M before the absorbed re-gathers
   * and the cheaper set-up) already costs 2.14 times the whole m16 prediction (14.74 M;
   * 16.63 M before), so no cheaper bookkeeping in the trial reaches 2 either. */
  int w0 = inter ? 2 * (pp - 1) + (v - 1) * q : pp - 1;
  /* Interleaved: five half-periods between three and eight (bench-predict --random 120
   * --interleaved, seeds 1-3, with or without --sync: the tasks simulated in all, every
   * step tried included (SimResult sim_tasks), -8.1 to -9.4%, 22-31 of 120 plans fewer,
   * none more; the same predictions. The main job's plan at VPP2 with the megatron-core
   * stack, 7 + 8 x 14 + 7 layers with the embedding and loss in the split, at 256
   * micro-batches: the step of 48 showed no period, that of 64 extended, where the step
   * of 96 did: 291,742 -> 226,974 tasks simulated in all, the same prediction; since the
   * check allows a picosecond of rounding, simulate.c time_shifted, that plan extends
   * from the step of 48 at once, 97,295). And 32 between 16 and 64: at 256 micro-batches a pipeline of four stages can settle
   * after the step of 16 half-periods and reach 64 only past half the step (Llama-3 405B
   * TP8 PP4 V = 2, 31 + 32 + 32 + 31 slots, megatron-core: its timeline repeats from about
   * micro-batch 40, the trials of 16, 24 and 40 showed none, 64 half-periods is 133, and the
   * whole step was simulated, 605,832 tasks in all; the step of 72 extends, 274,632, test
   * /sim/schedules/late-interleaved-settle). 78 plans of `tandem predict` (Llama-3 405B,
   * 70B and GPT-3 175B; megatron-core, nemo and torchtitan; pp 4-16, V 1-4, 64 and 256
   * micro-batches): 4,869,033 -> 4,485,577 tasks in all, only that plan's two stacks
   * changed; the 360 random interleaved plans of bench-predict the same to the task */
  static const int half_periods_inter[] = { 3, 5, 8, 16, 32, 64 };
  /* From pp 8 on, a 1F1B step that the first trial did not settle goes to the trial of
   * 64 half-periods at once: the middle one (w0 + 8 micro-batches) shows a period of a
   * few micro-batches that settles early, which such pipelines seldom have (Llama-3 405B
   * 7 + 14 x 8 + 7: 11 from micro-batch ~12; the middle trial of 23 failed and cost a
   * third of its prediction). Measured with `bench-predict --random 100 --reps 3 --seed S`
   * (100 random 1F1B plans of Llama 3 8B-405B and GPT-3 175B, pp 2-16, m 32-512, even and
   * uneven stages), three runs alternated with the binary that tried the middle step, the
   * best of each plan: seeds 1, 2, 3 -10.9, -11.4 and -8.5% in all, 15, 13 and 6 plans
   * more than 13% faster, none more than 5% slower in four runs of seed 1; bench-predict's
   * 1F1B m256 row 5.76-5.96 -> 4.46-4.66 ms best (three alternated runs of --reps 41).
   * Below pp 8 the middle trial (w0 + 8 is 11 micro-batches at pp 4) is what extends the
   * uneven plans (pp 4 31 + 32 + 32 + 31: 1.67 ms, 4.09 ms without it). */
  static const int half_periods_1f1b[] = { 6, 16, 64 };
  static const int half_periods_1f1b_deep[] = { 6, 64 };
  const gboolean deep = !inter && pp >= 8;
  /* A 1F1B pipeline whose heaviest stage is a middle one skips the first trial: in 300
   * random 1F1B plans (bench-predict --random 100, seeds 1-3) the first trial (w0 + 3
   * micro-batches) extended none of those whose middle stages hold more layers (Llama-3
   * 405B 15 + 16 x 6 + 15 at pp 8, 31 + 32 + 32 + 31 at pp 4, Llama-3 70B 19 + 21 + 21 +
   * 19, GPT-3 175B 23 + 25 + 25 + 23), so it cost them a step of w0 + 3 micro-batches for
   * nothing; where the last stage's output layer makes it the heaviest (Llama 3 8B 7 + 9 +
   * 9 + 7: 7 layers and 2.4 layers' worth of logits) it is still tried: it extended 4 of
   * the 8B's 9 (at tp 1 and 2, where skipping it cost 40-60%). Measured with
   * each plan timed alternately with and without the skip in one process (best of 7,
   * seeds 1-3; a one-off A/B build of run_random, not kept): the skipped plans 5-28% faster (most 10-24%; none slower beyond the
   * +-20% that the unaffected plans showed between the two arms), the 300 plans -8.5% in
   * all; bench-predict's 1F1B m256 row (the 7 + 14 x 8 + 7 plan, three alternated
   * runs of --reps 41, load average under 1) 4.24-4.27 -> 3.12-3.19 ms best, its m256 /
   * m16 ratio 3.9 -> 2.9. */
  /* Only for the dataflow 1F1B (plan.h pp_p2p_sync 0: bench-predict's plans, which the
   * figures above were measured on, and the stacks that do not synchronize): with the
   * megatron-core and nemo stacks' synchronize after each exchange the same middle-heavy
   * plans repeat every micro-batch and the first trial extends them (the 405B 7 + 14 x 8 +
   * 7 plan at 256 micro-batches: the step of 18, 33,246 events, where the skip simulated
   * the step of 47, 86,374; Llama-3 405B 15 + 16 x 6 + 15 at pp 8 18,262 against 70,462,
   * Llama-3 70B 19 + 21 + 21 + 19 7,006 against 12,706; at 64 micro-batches the 405B pp 16
   * plan was simulated whole, the step of 47 being more than half of it), so the skip
   * cost them 1.8-4 times the events (`tandem predict` of each, 5 Dec) */
  const gboolean skip_first = !inter && plan->pp_p2p_sync == 0 && middle_stage_heaviest (p);
  const int *half_periods = inter ? half_periods_inter
                                  : deep ? half_periods_1f1b_deep : half_periods_1f1b;
  const guint n_half = inter  ? G_N_ELEMENTS (half_periods_inter)
                       : deep ? G_N_ELEMENTS (half_periods_1f1b_deep)
                              : G_N_ELEMENTS (half_periods_1f1b);
  int last = q, tried = 0, retried = 0;
  if (inter)
    plan_vpp_group_split (pp, m, q, &last);
  /* An interleaved period short of the check's needs: find_period (simulate.c) needs a
   * whole period of stage 0's 1F1B phase and min (P, 8) slots more to match, and the
   * pipeline a few units after the first backward to settle (4 here), so a first trial of
   * three half-periods (1.5 P) holds that only where P / 2 >= min (P, 8) + 4: P >= 24
   * units. Below, the first trial takes the fewest half-periods that hold it (pp 4 with
   * V = 2, P = 16: four, the step of 16 where three gave 12, which 78 of 103 such random
   * plans could not extend from; pp 2 with V = 2, P = 8: five). bench-predict --random 120
   * --interleaved, seeds 1-3: the tasks simulated in all -10.3 to -11.9%, 22-31 plans fewer,
   * 6-10 more (Llama 3 8B at pp 4 V = 2, which had extended from the step of 12: 1,990 ->
   * 2,630 or 5,878 -> 7,814 tasks); seed 1 synchronized, best of 5 each, 115.9 / 118.1 ->
   * 107.1 / 107.6 ms (alternated) */
  int h_min = 0;
  if (inter)
    {
      /* the fewest h with h P / 2 >= P + need, and at least the table's first, three */
      const int P = 2 * q * v, need = MIN (P, 8) + 4;
      h_min = MAX (3, (2 * (P + need) + P - 1) / P);
    }
  for (guint i = skip_first ? 1 : 0; i < n_half; i++)
    {
      int mr = (2 * w0 + MAX (half_periods[i], h_min) * q * v + 2 * v - 1) / (2 * v);
      if (last == q)
        mr += ((m - mr) % q + q) % q;  /* m' = m mod q: the same last group */
      else
        mr += (q - mr % q) % q + last; /* whole groups, then the step's own last group,
                                        * whose units do not repeat the period's */
      if (mr + q > m || 2 * mr > m)
        break;
      if (mr == tried || mr == retried)
        continue;
      tried = mr;
      int c = 0;
      SimResult *r = steady_try (p, mr, q, max_c, &c, opts, tries, work, error);
      if (r != NULL || (error && *error))
        return r;
      /* a period of c micro-batches seen on the step of m' that does not divide m - m':
       * the next m'' with m - m'' a multiple of c, at once (the longer step holds the
       * same settled stretch, and it is at most c - 1 micro-batches longer, where the
       * next trial is two to four times as long; once: it settles the plans whose steady
       * state shows on this step). In 200 random 1F1B plans, 5 had tried the step of 64
       * half-periods first, which showed the same period again. */
      if (c > 1 && retried == 0)
        {
          int mr2 = mr + ((m - mr) % c);
          if (mr2 + c <= m && 2 * mr2 <= m)
            {
              retried = mr2;
              r = steady_try (p, mr2, q, max_c, NULL, opts, tries, work, error);
              if (r != NULL || (error && *error))
                return r;
            }
        }
    }
  /* no exactly periodic state within reach: the whole step is simulated */
  return NULL;
}

/* sim_simulate_watched's probe: the steady-state path on the shortest step of m'' >= need
 * micro-batches with m - m'' a multiple of the period c that the whole step shows, where
 * that is cheaper than running the whole step on: a step of m'' costs two to three times
 * per micro-batch what the rest of a running simulation does (its program is built, set up
 * and swept as well), so m'' must be under 0.4 of the m (1 - done) micro-batches left.
 * Measured: Llama-3 405B 1F1B 7+14x8+7 m256 without the slowdown (m'' = 47, done = 3/16)
 * 47-49 ms against 57-72 run on; a 405B pp8 5+6x19+7 m96 plan with m'' = 41 at done =
 * 2/16 took 7.0 ms against 5.8 run on. */
typedef struct {
  SimPrediction    *p;
  const SimOptions *opts;
  ProgProgram      *prog;     /* the shorter step's program, where it extended */
} SteadyWatch;

static SimResult *
steady_watch_probe (int c, int need, double done, gpointer data, GError **error)
{
  SteadyWatch *w = data;
  const Plan *plan = &w->p->plan;
  int m = plan->grad_accum;
  int mr = need + ((m - need) % c + c) % c;
  if (mr < 1 || mr + c > m || mr > 0.4 * (1 - done) * m)
    return NULL;
  ProgProgram *prog = program_with (w->p, mr, error);
  if (prog == NULL)
    return NULL;
  double tokens = (double) plan->global_batch * plan->seq_length;
  SimResult *r = sim_simulate_extended (prog, m - mr, 1, 2 * plan->pp, NULL, tokens,
                                        w->p->cluster, w->p->layout, w->opts, error);
  if (r == NULL)
    prog_program_free (prog);
  else
    w->prog = prog;
  return r;
}

/* Fills the plan's stack-dependent fields that the plan leaves unset (-1: ZeRO-3's
 * prefetch, reuse, per-tensor calls, rank copies and gather order, ZeRO-2's gradient sync,
 * fp8 TP all-gathers, dropout) from the stack's figures in `co` (NULL: the defaults of none). The
 * step program is built from these fields, so `tandem run` calls this with the options
 * of the prediction it is compared with: the program it runs is the one predicted. */
void
sim_plan_apply_stack (Plan *plan, const SimCostOptions *co)
{
  g_return_if_fail (plan != NULL);
  /* the stack's attention kernel class where the plan names none: deepspeed's and
   * megatron-lm-2021's materialize the scores (`show framework` says so); predict took
   * the plan's default flash under them, sizing and timing another kernel than the stack
   * it was asked for */
  if (!plan->attention_backend_set && co != NULL && co->attn_unfused)
    plan->attention_backend = PLAN_ATTN_UNFUSED;
  if (plan->zero3_prefetch_params < 0)
    plan->zero3_prefetch_params = co != NULL ? co->zero3_prefetch_params : 0;
  if (plan->zero3_reuse_params < 0)
    plan->zero3_reuse_params = co != NULL ? co->zero3_reuse_params : 0;
  if (plan->zero3_per_tensor < 0)
    plan->zero3_per_tensor = co != NULL && co->zero3_per_tensor;
  if (plan->zero3_rank_copies < 0)
    plan->zero3_rank_copies = co != NULL && co->zero3_rank_copies;
  if (plan->zero3_gather_ahead < 0)
    plan->zero3_gather_ahead = co != NULL && co->zero3_gather_ahead;
  /* a stack's once-a-step ZeRO-2 sync is torch.distributed.pipelining's (torchtitan's
   * source): without a pipeline torchtitan's train_step runs loss.backward() per
   * micro-batch with gradient sync on, so FSDP2 reduce-scatters each micro-batch's
   * gradients (torchtitan/train.py forward_backward_step, non-PP branch); at pp 1 the
   * once-a-step reading held 30 GiB of unsharded fp32 gradients of Llama 3 8B */
  /* a stack that overlaps its DP reductions from its hooks has no way not to (stack.h
   * dp_overlap_always): a plan that leaves the overlap off, as Megatron's flags default,
   * runs it on there (before, torchtitan without --overlap-grad-reduce was predicted
   * with the reductions after the backward, a plan it cannot run) */
  if (co != NULL && co->dp_overlap_always && plan->dp != 1)
    plan->overlap_grad_reduce = plan->overlap_param_gather = TRUE;
  if (plan->zero2_grad_sync < 0)
    plan->zero2_grad_sync = co != NULL && (co->zero2_grad_per_mb || plan->pp <= 1);
  /* the FP8 TP all-gather of a per-tensor recipe (delayed or current scaling: TE 1.x's
   * uint8 norm output, torchao's tensorwise Float8 TP); a block- or row-scaled recipe
   * gathers as the stack's sources do not establish (TE 2.x runs MXFP8 norms without the
   * fused quantization where the input is gathered): bf16 */
  if (plan->tp_all_gather_fp8 < 0)
    {
      const int recipe = plan->fp8_recipe >= 0 ? plan->fp8_recipe
                         : co != NULL ? co->fp8_scaling : FW_SCALING_DELAYED;
      plan->tp_all_gather_fp8 = co != NULL && co->fp8_tp_all_gather
                                && (recipe == FW_SCALING_DELAYED || recipe == FW_SCALING_CURRENT);
    }
  /* the stack's fp8 weights (nemo: NeMo 2's and Megatron-Bridge's delayed and current
   * scaling recipes set fp8_param_gather) */
  if (co != NULL)
    plan_fill_fp8_param_gather (plan, co->fp8_param_gather, co->fp8_scaling);
  if (plan->tp_seq_copies < 0)
    plan->tp_seq_copies = co != NULL && co->tp_seq_copies;
  if (plan->tp_grad_rs_whole < 0)
    plan->tp_grad_rs_whole = co != NULL && co->tp_grad_rs_whole;
  if (plan->pp_grad_after_stage < 0)
    plan->pp_grad_after_stage = co != NULL && co->pp_grad_after_stage;
  if (plan->pp_lockstep < 0)
    plan->pp_lockstep = co != NULL && co->pp_lockstep;
  if (plan->pp_p2p_sync < 0)
    plan->pp_p2p_sync = co != NULL ? co->pp_p2p_sync : 0;
  if (plan->pp_scatter_gather < 0)
    plan->pp_scatter_gather = co != NULL && co->pp_scatter_gather;
  if (plan->grad_accum_upcast < 0)
    plan->grad_accum_upcast = co != NULL && co->grad_accum_upcast;
  if (plan->zero3_copy_in_out < 0)
    plan->zero3_copy_in_out = co != NULL && co->zero3_copy_in_out;
  if (plan->zero3_grad_copy_in < 0)
    plan->zero3_grad_copy_in = 0;
  if (plan->fsdp_fp32_shards < 0)
    plan->fsdp_fp32_shards = co != NULL && co->fsdp_fp32_shards;
  if (plan->zero2_reduce_passes < 0)
    plan->zero2_reduce_passes = co != NULL && co->zero2_reduce_passes;
  if (plan->cp_ring_merge < 0)
    plan->cp_ring_merge = co != NULL && co->cp_ring_merge;
  if (plan->cp_kv_repeated < 0)
    plan->cp_kv_repeated = co != NULL && co->cp_kv_repeated;
  if (plan->loss_eager < 0)
    plan->loss_eager = co != NULL && co->loss_eager;
  if (plan->pp_free_stage_input < 0)
    plan->pp_free_stage_input = co != NULL && co->pp_free_stage_input;
  if (plan->remat_named < 0)
    plan->remat_named = co != NULL && co->remat_named;
  /* torch.compile fuses the SwiGLU and its partitioner chooses what it saves: the eager
   * save set is the stack's without --compile only */
  if (plan->swiglu_eager_saves < 0)
    plan->swiglu_eager_saves = co != NULL && co->swiglu_eager_saves && !plan->compile;
  if (plan->pp_keep_stage_output < 0)
    plan->pp_keep_stage_output = co != NULL && co->pp_keep_stage_output;
  if (plan->fp8_moe_act_input < 0)
    plan->fp8_moe_act_input = co != NULL && co->fp8_moe_act_input;
  if (plan->fp8_attn_out_e5m6 < 0)
    plan->fp8_attn_out_e5m6 = co != NULL && co->fp8_attn_out_e5m6;
  if (plan->fp8_attention < 0)
    plan->fp8_attention = co != NULL && co->fp8_attention;
  if (plan->fp8_moe_dispatch < 0)
    plan->fp8_moe_dispatch = co != NULL && co->fp8_moe_dispatch;
  /* -1 is the model's dropout; a stack whose model code drops nothing makes it none */
  if (plan->dropout < 0 && co != NULL && co->no_dropout)
    plan->dropout = 0;
}

SimPrediction *
sim_predict (const ModelSpec *model, const Plan *plan, const TopoCluster *cluster,
             const SimOptions *opts, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (SimPrediction) p = g_new0 (SimPrediction, 1);
  p->model = model_spec_ref ((ModelSpec *) model);
  p->cluster = topo_cluster_ref ((TopoCluster *) cluster);
  plan_copy (&p->plan, plan);
  /* ZeRO-3 as the stack issues it, where the plan does not say (plan.h) */
  sim_plan_apply_stack (&p->plan, opts != NULL ? &opts->cost : NULL);
  plan = &p->plan;
  /* a compiled run: what compiling does is the stack's (sim_cost_options_compile) */
  SimOptions compiled;
  if (plan->compile)
    {
      if (opts != NULL)
        compiled = *opts;
      else
        sim_options_init (&compiled, cluster);
      sim_cost_options_compile (&compiled.cost);
      opts = &compiled;
    }
  /* what the plan changes in the cost model (CUDA graphs over the MoE layers or their
   * routers, an FP8 recipe other than the stack's) */
  SimOptions planned;
  if (plan_cuda_graph_moe (plan) || plan_cuda_graph_moe_router (plan) || plan->fp8_recipe >= 0)
    {
      if (opts != NULL)
        planned = *opts;
      else
        sim_options_init (&planned, cluster);
      sim_cost_options_apply_plan (&planned.cost, plan);
      opts = &planned;
    }
  if (opts != NULL && !sim_cost_options_check_device (&opts->cost, cluster, plan, TRUE, error))
    return NULL;
  p->layout = plan_layout_new (plan, cluster, error);
  if (p->layout == NULL)
    return NULL;
  int tries = 0;
  guint64 work = 0;
  if (opts == NULL || (!opts->full_simulation && !opts->keep_timeline))
    {
      SimOptions defaults;
      if (opts == NULL)
        sim_options_init (&defaults, cluster);
      g_autoptr (GError) local = NULL;
      p->result = predict_steady (p, opts ? opts : &defaults, &tries, &work, &local);
      if (local != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return NULL;
        }
    }
  if (p->result == NULL)
    {
      p->program = prog_program_new (model, plan, p->layout, error);
      if (p->program == NULL)
        return NULL;
      /* a 1F1B step that the shorter steps showed no period in: the whole step, watched
       * for one that shows later (sim_simulate_watched) */
      gboolean watch = plan->schedule == PLAN_SCHED_1F1B && plan->pp >= 2
                       && plan_pp_schedules (plan) == 1
                       && (opts == NULL || (!opts->full_simulation && !opts->keep_timeline));
      SteadyWatch w = { p, opts, NULL };
      SimOptions wdefaults;
      if (watch && opts == NULL)
        {
          sim_options_init (&wdefaults, cluster);
          w.opts = &wdefaults;
        }
      p->result = watch ? sim_simulate_watched (p->program, 2 * plan->pp, steady_watch_probe,
                                                &w, cluster, p->layout, w.opts, error)
                        : sim_simulate (p->program, cluster, p->layout, opts, error);
      if (w.prog != NULL)
        {
          /* extended from the shorter step: its program is the one kept */
          prog_program_free (p->program);
          p->program = NULL;
          if (p->result != NULL)
            program_totals (p, w.prog, p->result);
          else
            prog_program_free (w.prog);
        }
      if (p->result == NULL)
        return NULL;
      /* the whole step's simulation (watched: the part run, and the shorter step its probe
       * extended from, sim_simulate_watched) */
      work += p->result->n_events;
    }
  p->result->steady_tries = tries;
  p->result->sim_tasks = work;
  /* The clock is 64-bit picoseconds and saturates at 2^64 ps (213.5 days): a step that
   * reaches half of that may have been cut short, and its MFU would be a lie. */
  const double clock_limit_s = sim_time_to_s (SIM_TIME_MAX / 2);
  if (!(p->result->step_time_s < clock_limit_s))
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_INVALID,
                   "the simulated step lasts %.0f s or more, beyond the %.0f s (2^63 ps, "
                   "106.7 days) up to which the simulator's 64-bit picosecond clock is "
                   "trusted (hint: a shorter --seq-length, a smaller --gbs, or more GPUs)",
                   MIN (p->result->step_time_s, sim_time_to_s (SIM_TIME_MAX)), clock_limit_s);
      return NULL;
    }
  plan_memory_compute (model, plan, cluster, &p->memory);
  p->wall_s = (double) (g_get_monotonic_time () - t0) / 1e6;
  return g_steal_pointer (&p);
}

void
sim_prediction_free (SimPrediction *p)
{
  if (p == NULL)
    return;
  model_spec_unref (p->model);
  topo_cluster_unref (p->cluster);
  plan_clear (&p->plan);
  plan_layout_free (p->layout);
  prog_program_free (p->program);
  sim_result_free (p->result);
  plan_memory_clear (&p->memory);
  g_free (p);
}

static void
set_double (JsonBuilder *b, const char *name, double v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_double_value (b, v);
}

void
sim_comm_kinds_to_json (JsonBuilder *b, const char *name, const double v[PROG_COMM_N])
{
  static const char *const keys[] = { "tp", "cp", "ep", "pp", "dp" };
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      double x = 0.0;
      for (int k = 0; k < PROG_COMM_N; k++)
        if (g_str_equal (prog_comm_name (k), keys[i]))
          x = v[k];
      json_builder_set_member_name (b, keys[i]);
      if (isfinite (x))
        json_builder_add_double_value (b, x);
      else
        json_builder_add_null_value (b);
    }
  json_builder_end_object (b);
}

void
sim_prediction_to_json (const SimPrediction *p, ModelFlopConvention conv, JsonBuilder *b)
{
  const SimResult *r = p->result;
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "model");
  json_builder_add_string_value (b, p->model->name);
  json_builder_set_member_name (b, "cluster");
  json_builder_add_string_value (b, p->cluster->name);
  json_builder_set_member_name (b, "plan");
  plan_to_json (&p->plan, b);
  set_double (b, "step_time_s", r->step_time_s);
  set_double (b, "tokens_per_s", r->tokens_per_s);
  set_double (b, "tflops_per_gpu", r->model_tflops_per_gpu[conv]);
  set_double (b, "hw_tflops_per_gpu", r->hw_tflops_per_gpu);
  json_builder_set_member_name (b, "flops_convention");
  json_builder_add_string_value (b, model_flop_convention_name (conv));
  json_builder_set_member_name (b, "mfu");
  json_builder_begin_object (b);
  for (int c = 0; c < MODEL_FLOPS_N_CONVENTIONS; c++)
    if (model_flop_convention_refusal (p->model, c) != NULL)
      {
        /* no term for the model's experts or latent attention: unknown, not 0 */
        json_builder_set_member_name (b, model_flop_convention_name (c));
        json_builder_add_null_value (b);
      }
    else
      set_double (b, model_flop_convention_name (c), r->mfu[c]);
  json_builder_end_object (b);
  /* HFU counts the FLOPs executed (causal attention, recompute included): it has no
   * convention, so it is one number (docs/contracts.md) */
  set_double (b, "hfu", r->hfu);
  set_double (b, "peak_flops_per_gpu", r->peak_flops);
  set_double (b, "bubble_fraction", r->bubble_fraction);
  set_double (b, "compute_s", r->compute_s);
  sim_comm_kinds_to_json (b, "exposed_comm_s", r->exposed_comm_s);
  sim_comm_kinds_to_json (b, "comm_s", r->comm_s);
  /* CPU offload copies over the host link (plan.cpu_offload_layers > 0 only, so other
   * plans' JSON is unchanged): busy and exposed, means over stages */
  if (p->program != NULL && p->program->plan.cpu_offload_layers > 0)
    {
      set_double (b, "offload_s", r->comm_s[SIM_KIND_OFFLOAD]);
      set_double (b, "exposed_offload_s", r->exposed_comm_s[SIM_KIND_OFFLOAD]);
    }
  set_double (b, "overlap_ratio", r->overlap_ratio);
  json_builder_set_member_name (b, "critical_stage");
  json_builder_add_int_value (b, r->critical_stage);
  json_builder_set_member_name (b, "stages");
  json_builder_begin_array (b);
  for (int s = 0; s < r->n_stages; s++)
    {
      const SimStageStats *st = &r->stages[s];
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "stage");
      json_builder_add_int_value (b, s);
      set_double (b, "end_s", st->end_s);
      set_double (b, "compute_s", st->compute_s);
      set_double (b, "bubble_s", st->bubble_s);
      sim_comm_kinds_to_json (b, "comm_s", st->comm_s);
      sim_comm_kinds_to_json (b, "exposed_comm_s", st->exposed_s);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "memory");
  plan_memory_to_json (&p->memory, b);
  json_builder_set_member_name (b, "oom");
  json_builder_add_boolean_value (b, !p->memory.fits);
  json_builder_set_member_name (b, "tasks");
  json_builder_add_int_value (b, r->n_tasks);
  json_builder_set_member_name (b, "events");
  json_builder_add_int_value (b, (gint64) r->n_events);
  /* every task simulated, the shorter steps tried included (SimResult sim_tasks); events
   * counts the kept simulation's */
  json_builder_set_member_name (b, "tasks_simulated_in_all");
  json_builder_add_int_value (b, (gint64) r->sim_tasks);
  /* the steady-state path: periods added to the simulated step (0: all simulated) */
  json_builder_set_member_name (b, "steady_periods");
  json_builder_add_int_value (b, r->steady_periods);
  set_double (b, "sim_wall_s", p->wall_s);
  json_builder_end_object (b);
}
