/* exec/registry.c - the backends built into this binary, and what every backend shares:
 * the error domain, dtype and collective names, opening by name, groups from a layout. */
#include "config.h"
#include "exec/backend.h"
#if HAVE_CUDA
#include "exec/backend-cuda.h"
#endif

#include <string.h>

G_DEFINE_QUARK (exec-error-quark, exec_error)

/* STYLE.md section 5: the CPU reference first; the CUDA backend (cuBLAS + NCCL) when
 * meson found the toolkit. */
static const ExecBackendOps *const backends[] = {
  &exec_cpu_ops,
#if HAVE_CUDA
  &exec_cuda_ops,
#endif
  NULL,
};

const ExecBackendOps *const *
exec_backends (void)
{
  return backends;
}

gsize
exec_dtype_size (ExecDtype dtype)
{
  switch (dtype)
    {
    case EXEC_DTYPE_F32:      return 4;
    case EXEC_DTYPE_BF16:
    case EXEC_DTYPE_F16:      return 2;
    case EXEC_DTYPE_FP8_E4M3:
    case EXEC_DTYPE_FP8_E5M2: return 1;
    }
  return 4;
}

const char *
exec_dtype_name (ExecDtype dtype)
{
  switch (dtype)
    {
    case EXEC_DTYPE_F32:  return "float32";
    case EXEC_DTYPE_BF16: return "bfloat16";
    case EXEC_DTYPE_F16:  return "float16";
    case EXEC_DTYPE_FP8_E4M3: return "float8_e4m3";
    case EXEC_DTYPE_FP8_E5M2: return "float8_e5m2";
    }
  return "?";
}

const char *
exec_coll_name (ExecCollKind kind)
{
  static const char *const names[] = { "all_reduce", "reduce_scatter", "all_gather",
                                       "all_to_all", "send", "recv", "send_recv" };
  G_STATIC_ASSERT (G_N_ELEMENTS (names) == EXEC_COLL_N);
  return (guint) kind < EXEC_COLL_N ? names[kind] : "?";
}

PlanColl
exec_coll_to_plan (ExecCollKind kind)
{
  switch (kind)
    {
    case EXEC_COLL_ALL_REDUCE:     return PLAN_COLL_ALL_REDUCE;
    case EXEC_COLL_REDUCE_SCATTER: return PLAN_COLL_REDUCE_SCATTER;
    case EXEC_COLL_ALL_GATHER:     return PLAN_COLL_ALL_GATHER;
    case EXEC_COLL_ALL_TO_ALL:     return PLAN_COLL_ALL_TO_ALL;
    default:                       return PLAN_COLL_SEND_RECV;
    }
}

void
exec_config_init (ExecConfig *config)
{
  memset (config, 0, sizeof *config);
  config->mpi = EXEC_MPI_AUTO;
  config->timeout_s = EXEC_DEFAULT_TIMEOUT_S;
  config->progress_us = EXEC_DEFAULT_PROGRESS_US;
  config->blas_threads = 1;
  config->device = -1;
}

const ExecBackendOps *
exec_backend_lookup (const char *name, GError **error)
{
  g_autoptr (GString) known = g_string_new (NULL);
  for (guint i = 0; backends[i]; i++)
    {
      if (g_strcmp0 (backends[i]->name, name) == 0)
        return backends[i];
      g_string_append_printf (known, "%s%s", i ? ", " : "", backends[i]->name);
    }
  g_set_error (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE,
               "no execution backend '%s' in this build (built: %s)", name, known->str);
  return NULL;
}

ExecBackend *
exec_backend_open (const ExecConfig *config, GError **error)
{
  ExecConfig defaults;
  if (!config)
    {
      exec_config_init (&defaults);
      config = &defaults;
    }
  if (config->backend)
    {
      const ExecBackendOps *ops = exec_backend_lookup (config->backend, error);
      return ops ? ops->open (config, error) : NULL;
    }
  /* The first backend that is available; the CPU reference is the last resort even when
   * available() complains (it still runs single-process without MPI or BLAS). */
  for (guint i = 0; backends[i]; i++)
    if (backends[i]->available (NULL))
      return backends[i]->open (config, error);
  return exec_cpu_ops.open (config, error);
}

void
exec_backend_close (ExecBackend *b)
{
  if (b)
    b->ops->close (b);
}

void
exec_backend_abort (ExecBackend *b, int code)
{
  b->ops->abort (b, code);
}

ExecGroup *
exec_group_new (ExecBackend *b, const char *name, const int *members, int n_members,
                GError **error)
{
  int color = G_MAXINT;
  gboolean mine = FALSE;
  for (int i = 0; i < n_members; i++)
    {
      color = MIN (color, members[i]);
      mine |= members[i] == b->rank;
    }
  if (n_members < 1 || !mine)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "group '%s': rank %d is not among its %d members", name, b->rank,
                   n_members);
      return NULL;
    }
  return b->ops->group_new (b, name, color, members, n_members, error);
}

ExecGroup *
exec_group_new_from_layout (ExecBackend *b, const PlanLayout *layout, PlanAxis axis,
                            GError **error)
{
  if (layout->world != b->world)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "the plan's layout has %d ranks but the backend runs %d (hint: launch "
                   "with mpirun -np %d)", layout->world, b->world, layout->world);
      return NULL;
    }
  int n = layout->groups[axis].size;
  g_autofree int *members = g_new (int, MAX (n, 1));
  plan_layout_group_members (layout, axis, b->rank, members);
  int color = plan_layout_group_color (layout, axis, b->rank);
  return b->ops->group_new (b, plan_axis_name (axis), color, members, n, error);
}

void
exec_group_free (ExecGroup *group)
{
  if (group)
    group->backend->ops->group_free (group->backend, group);
}
