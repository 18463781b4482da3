/* sim/cost-cpu.c - the contention model of a CPU host (a cluster whose profile was measured
 * by the cpu backend with a "contention" object: topology/cluster.h TopoProfileContention,
 * exec/calibrate-contention.c). Nothing here is fitted; every input is a measurement of
 * `tandem calibrate` or a count of this machine's cores and threads.
 *
 * On a GPU, compute and the collectives that the step program overlaps with it run on
 * different engines. On a CPU host each rank is a process of threads on the host's cores:
 * b BLAS threads that compute, and the MPI progress thread (exec/backend-cpu-stream.c)
 * whose MPI_Test calls do the collective's memory copies and reductions. Two terms follow:
 *
 *  1. Time-sharing of compute. R ranks of b compute threads on C cores each get
 *     share(C, R) = min (1, C / (R b)) of a core. The profile's rates were measured with
 *     the calibration's R_cal ranks on C_cal cores, so a compute op's time is the
 *     profile's times share(C_cal, R_cal) / share(C, R): 2 ranks calibrated on 2 cores
 *     and run on 1 core take twice as long. The measured collectives scale alike
 *     (sim/cost-comm.c): on a CPU host they are the ranks' threads copying and reducing.
 *  2. The overlapped collective's CPU work lands on the compute stream. When the threads
 *     that are runnable while a collective is in flight, R (b + p) with p progress
 *     threads per rank, exceed the C cores, the progress thread's work takes its core
 *     from compute. Calibration measures that share directly: the same GEMMs alone and
 *     with an all-reduce in flight on every rank, s = t_with / t_alone - 1 (>= 0): while
 *     a collective runs, compute goes at 1 / (1 + s) of its rate. The simulator applies
 *     it for the collective's span only (sim_cost_cpu_coll_slowdown: the collective
 *     holds a unit, as a GPU collective holds SMs), so a compute block of d seconds that
 *     starts beside a collective ending T seconds later takes d (1 + s) if it ends first,
 *     else d + T s / (1 + s). Not the GPU rule (comm_compute_slowdown stretching the
 *     whole block that starts beside it): a rank's block is a layer's pass of ~10 ms,
 *     a TP collective beside it ~0.1 ms, and the GPU rule predicted TP2+SP's backward
 *     (README plan, tiny-llama seq 256) 26 ms per layer where 14 ms was measured.
 *     When R (b + p) <= C every thread has a core and s = 0. A run on a host that is
 *     oversubscribed where calibration was not keeps the measured s (then ~0): it
 *     cannot be measured without contention, and the model says so rather than guess.
 *
 *  3. Other processes. On a shared host others' threads take the cores too, and neither
 *     count is known in advance. The kernel counts, per thread, the time it ran and the
 *     time it was runnable but waited for a core (/proc/thread-self/schedstat); their
 *     ratio on CPU / (on CPU + waiting) is the share of a core the thread got while it
 *     wanted one. Calibration records it over its compute benchmarks (compute_share); a run that
 *     measures its own (SimCostOptions.cpu_share: `tandem run`'s load-corrected line)
 *     replaces term 1 by cal_share / share, since both shares already hold every
 *     reason the thread waited (others, more threads than cores, the progress thread).
 *     Under load each calibration row is timed at its own share s_i (seconds apart, the
 *     others' load changing in between); tandem calibrate restates each row's rate at
 *     cal_share (rate cal_share / s_i, exec/calibrate-profile.c), so the one factor here
 *     gives each row its own on-CPU time over the run's share.
 *
 *  4. The ranks drift apart between collectives. A rank that waits for a core does so
 *     in whole waits: the scheduler runs a thread for a while, preempts it, runs it again
 *     after the others' turns, so the time w seconds of compute take is w plus a sum of
 *     waits whose number and lengths are random, and two ranks with the same share finish
 *     the same segment at different times. The ranks meet at every TP and DP collective;
 *     there the earlier one waits for the later, so a segment costs the step the larger of
 *     the two times, not the mean the share predicts (term 3 takes the slowest rank's mean;
 *     on one rank's trace the wait shows as exposed TP). Per rank, over its compute tasks,
 *     schedstat's figures give the mean run a between two waits (on CPU / times put on a
 *     CPU) and the mean wait d (waiting / times). The waits of a segment of w seconds on
 *     CPU are taken as a compound Poisson sum: w / a of them on average, each of mean d,
 *     lengths exponential (the only assumption: nothing else is known of the others'
 *     turns), so their sum has variance (w / a) 2 d^2; its mean is w / s - w with s the
 *     rank's share. The ranks are independent: the expected maximum of normal variables
 *     of those means and variances is Clark's (C. E. Clark, "The greatest of a finite set
 *     of random variables", Operations Research 9(2), 1961: exact for two, pairwise for
 *     more), and the step gains E[max] - max of the means per segment
 *     (sim_cost_cpu_skew_s). Nothing is fitted: on a quiet host d is small and a long, and
 *     the term vanishes; under load a TP step of 68 segments gains ~sqrt(68) times more
 *     than one of a single segment (DP's one reduction after the backward).
 *     That variance is a floor: others' load comes in bursts (a compiler that holds a
 *     core for 100 ms), so the rate of waiting itself changes from one task to the next.
 *     Where the run measured each compute task's wait D_i and time on a CPU w_i, the
 *     variance per second on a CPU is taken from them instead, about the rank's mean
 *     rate m: sum (D_i - m w_i)^2 / sum w_i (SimCpuRankSched.wait_var_s). On the loaded
 *     VM a TP2 attention block of ~0.15 s on a CPU had a wall-time standard deviation of
 *     ~0.2 s between layers, ten times the Poisson figure.
 *
 * R is the ranks per host of the prediction (SimCostOptions.cpu_ranks, else the cluster's
 * level-0 device count), C the cores they may run on (cpu_cores: `tandem run` reads
 * sched_getaffinity at run time; else the calibration's). Clusters without a contention
 * object (every GPU cluster, CPU profiles from before it) are left exactly as they were:
 * the scale is 1 and comm_compute_slowdown is not touched. */
#include "sim/cost-private.h"

#include <math.h>
#include <string.h>

static const TopoProfileContention *
contention_of (const TopoCluster *cluster)
{
  if (cluster == NULL || cluster->profile == NULL
      || g_strcmp0 (cluster->profile->backend, "cpu") != 0)
    return NULL;
  const TopoProfileContention *ct = &cluster->profile->contention;
  return ct->cores > 0 && ct->gemm_alone_s > 0 && ct->gemm_coll_s > 0 ? ct : NULL;
}

static double
share (double cores, double ranks, double threads)
{
  const double want = MAX (ranks, 1.0) * MAX (threads, 1.0);
  return MIN (1.0, MAX (cores, 1.0) / want);
}

gboolean
sim_cost_cpu_contention (const TopoCluster *cluster, const SimCostOptions *o,
                         SimCpuContention *out)
{
  g_return_val_if_fail (out != NULL, FALSE);
  memset (out, 0, sizeof *out);
  const TopoProfileContention *ct = contention_of (cluster);
  if (ct == NULL)
    return FALSE;
  const double b = MAX (ct->blas_threads, 1u), p = ct->progress_threads;
  out->cal_cores = ct->cores;
  out->cal_ranks = MAX (cluster->profile->ranks, 1u);
  out->cores = o != NULL && o->cpu_cores > 0 ? o->cpu_cores : out->cal_cores;
  out->ranks = o != NULL && o->cpu_ranks > 0 ? o->cpu_ranks
               : (double) MAX (cluster->levels[0].count, (guint64) 1);
  out->threads_per_rank = b + p;
  out->measured_slowdown = MAX (ct->gemm_coll_s / ct->gemm_alone_s - 1.0, 0.0);
  out->compute_scale = share (out->cal_cores, out->cal_ranks, b)
                       / share (out->cores, out->ranks, b);
  out->cal_share = ct->compute_share;
  out->share = o != NULL && o->cpu_share > 0 ? MIN (o->cpu_share, 1.0) : 0.0;
  out->measured_share = out->cal_share > 0 && out->share > 0;
  if (out->measured_share)
    out->compute_scale = out->cal_share / out->share;
  out->oversubscribed = out->ranks * (b + p) > out->cores;
  out->slowdown = out->oversubscribed ? out->measured_slowdown : 0.0;
  return TRUE;
}

void
sim_cost_options_cpu_host (SimCostOptions *o, const TopoCluster *cluster, double cores,
                           double ranks)
{
  g_return_if_fail (o != NULL);
  o->cpu_cores = MAX (cores, 0.0);
  o->cpu_ranks = MAX (ranks, 0.0);
  SimCpuContention m;
  if (sim_cost_cpu_contention (cluster, o, &m))
    o->comm_compute_slowdown = m.slowdown;
}

/* Term 3 for a step of several ranks. The ranks' programs meet at every TP and DP
 * collective and every pipeline send: a rank that arrives first waits (asleep, so its
 * own share does not fall), and the step ends when the last one gets there. With
 * shares s_r held through the step, a rank's compute of w seconds at the calibration's
 * share takes w c / s_r, and the step follows max_r w c / s_r = w c / min_r s_r: the
 * slowest rank's share, not rank 0's (which `tandem run` used before). */
double
sim_cost_cpu_step_share (const double *shares, int n, int *rank)
{
  double low = 0;
  int which = -1;
  for (int r = 0; shares != NULL && r < n; r++)
    if (shares[r] > 0 && (which < 0 || shares[r] < low))
      {
        low = MIN (shares[r], 1.0);
        which = r;
      }
  if (rank != NULL)
    *rank = which;
  return low;
}

/* E[max (X1, X2)] and Var for independent normal X1 (m1, v1), X2 (m2, v2) (Clark 1961,
 * equations 2 and 3 with no correlation). */
static void
clark_max (double m1, double v1, double m2, double v2, double *m, double *v)
{
  const double t2 = v1 + v2;
  if (t2 <= 0)
    {
      *m = MAX (m1, m2);
      *v = m1 >= m2 ? v1 : v2;
      return;
    }
  const double t = sqrt (t2), a = (m1 - m2) / t;
  const double p = 0.5 * erfc (-a / G_SQRT2), q = 0.5 * erfc (a / G_SQRT2);
  const double f = exp (-0.5 * a * a) / sqrt (2 * G_PI);
  *m = m1 * p + m2 * q + t * f;
  const double second = (m1 * m1 + v1) * p + (m2 * m2 + v2) * q + (m1 + m2) * t * f;
  *v = MAX (second - *m * *m, 0.0);
}

double
sim_cost_cpu_skew_s (const double *seg, int n_seg, const SimCpuRankSched *ranks, int n_ranks)
{
  if (seg == NULL || ranks == NULL || n_ranks < 2)
    return 0.0;
  double total = 0;
  for (int k = 0; k < n_seg; k++)
    {
      const double w = seg[k];
      if (!(w > 0))
        continue;
      double m = 0, v = 0, top = 0;
      int seen = 0;
      for (int r = 0; r < n_ranks; r++)
        {
          const SimCpuRankSched *x = &ranks[r];
          if (!(x->share > 0))
            continue;
          const double mr = w / MIN (x->share, 1.0);
          const double vr = x->wait_var_s > 0 ? w * x->wait_var_s
                            : x->run_s > 0 && x->wait_s > 0
                            ? w / x->run_s * 2 * x->wait_s * x->wait_s : 0.0;
          if (seen++ == 0)
            m = mr, v = vr, top = mr;
          else
            {
              clark_max (m, v, mr, vr, &m, &v);
              top = MAX (top, mr);
            }
        }
      if (seen >= 2)
        total += MAX (m - top, 0.0);
    }
  return total;
}

void
sim_cost_cpu_init (SimCost *c)
{
  SimCpuContention m;
  const gboolean host = sim_cost_cpu_contention (c->cluster, &c->opts, &m);
  c->cpu_time_scale = host ? m.compute_scale : 1.0;
  /* the slowdown holds while the collective runs, not for the whole compute block that
   * starts beside it (sim/simulate.c's slow_ps, a GPU kernel's rule): a rank's compute
   * block is a layer's pass of many BLAS calls, its collectives a fraction of a
   * millisecond; the simulator applies it as a unit the collective holds until it ends
   * (term 2 above: the progress thread's core time is taken while it runs). */
  c->cpu_coll_slowdown = host && c->opts.comm_compute_slowdown > 0
                         ? c->opts.comm_compute_slowdown : 0.0;
}

double
sim_cost_cpu_coll_slowdown (const SimCost *c)
{
  g_return_val_if_fail (c != NULL, 0.0);
  return c->opts.free_comm ? 0.0 : c->cpu_coll_slowdown;
}
