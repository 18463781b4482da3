/* plan/collective.c - the collective table (nccl-tests doc/PERFORMANCE.md bus factors). */
#include "plan/collective.h"

static double
bus_all_reduce (int n)
{
  /* busbw = algbw x 2(n-1)/n: each rank sends and receives 2(n-1)/n of the buffer */
  return n > 1 ? 2.0 * (n - 1) / n : 0.0;
}

static double
bus_n_minus_1 (int n)
{
  /* all-gather, reduce-scatter, all-to-all: (n-1)/n */
  return n > 1 ? (double) (n - 1) / n : 0.0;
}

static double
bus_one (int n)
{
  return 1.0;
}

static int
steps_all_reduce (int n)
{
  return n > 1 ? 2 * (n - 1) : 0;     /* ring: reduce-scatter then all-gather */
}

static int
steps_n_minus_1 (int n)
{
  return n > 1 ? n - 1 : 0;
}

static int
steps_one (int n)
{
  return 1;
}

static const PlanCollInfo table[PLAN_COLL_N] = {
  { PLAN_COLL_ALL_REDUCE, "all_reduce", bus_all_reduce, steps_all_reduce },
  { PLAN_COLL_REDUCE_SCATTER, "reduce_scatter", bus_n_minus_1, steps_n_minus_1 },
  { PLAN_COLL_ALL_GATHER, "all_gather", bus_n_minus_1, steps_n_minus_1 },
  { PLAN_COLL_ALL_TO_ALL, "alltoall", bus_n_minus_1, steps_n_minus_1 },
  { PLAN_COLL_SEND_RECV, "sendrecv", bus_one, steps_one },
};

const PlanCollInfo *
plan_coll_info (PlanColl kind)
{
  g_return_val_if_fail ((guint) kind < PLAN_COLL_N, NULL);
  return &table[kind];
}

const char *
plan_coll_name (PlanColl kind)
{
  return (guint) kind < PLAN_COLL_N ? table[kind].name : "?";
}

gboolean
plan_coll_parse (const char *name, PlanColl *out)
{
  for (int i = 0; i < PLAN_COLL_N; i++)
    if (g_ascii_strcasecmp (name, table[i].name) == 0)
      {
        *out = (PlanColl) i;
        return TRUE;
      }
  return FALSE;
}

double
plan_coll_bus_factor (PlanColl kind, int n)
{
  return table[kind].bus_factor (n);
}

int
plan_coll_steps (PlanColl kind, int n)
{
  return table[kind].steps (n);
}
