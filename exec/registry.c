/* exec/registry.c - the backends built into this binary, and what every backend shares:
 * the error domain, dtype and collective names, opening by name, groups from a layout. */
#include "config.h"
#include "exec/backend.h"

#include <gmodule.h>
#include <string.h>

G_DEFINE_QUARK (exec-error-quark, exec_error)

/* STYLE.md section 5: the CPU reference first; the CUDA backend (cuBLAS + NCCL) when
 * meson found the toolkit. The CUDA backend lives in a loadable module so that a program
 * that never uses it does not load libcudart, cuBLAS, cuBLASLt and NCCL at start-up
 * (0.3 s and ~220 MB per process); the module is opened on its first lookup. */
#define EXEC_CUDA_MODULE "tandem-backend-cuda"

static const ExecBackendOps *backends[] = {
  &exec_cpu_ops,
  NULL,   /* cuda, once its module is loaded */
  NULL,
};

/* Folders searched for the module: $TANDEM_BACKEND_DIR alone when set; else an `exec`
 * folder next to the program or up to two levels above it (the build tree: build/exec
 * for build/cli/tandem and build/tests/exec/test-*), then the install folder. */
static GPtrArray *
module_dirs (void)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  const char *env = g_getenv ("TANDEM_BACKEND_DIR");
  if (env != NULL && *env != '\0')
    {
      g_ptr_array_add (dirs, g_strdup (env));
      return dirs;
    }
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  if (exe != NULL)
    {
      g_autofree char *d = g_path_get_dirname (exe);
      for (int up = 0; up < 3; up++)
        {
          g_ptr_array_add (dirs, g_build_filename (d, "exec", NULL));
          char *parent = g_path_get_dirname (d);
          g_free (d);
          d = parent;
        }
    }
#ifdef EXEC_MODULE_DIR
  g_ptr_array_add (dirs, g_strdup (EXEC_MODULE_DIR));
#endif
  return dirs;
}

/* The cuda backend's ops from its module, loaded once (and never unloaded: its ops table
 * and the libraries it pulled in stay for the life of the process). NULL with the reason
 * when the module is missing or does not load (no CUDA runtime, cuBLAS or NCCL). */
static const ExecBackendOps *
cuda_module_ops (GError **error)
{
#if HAVE_CUDA
  static GMutex lock;
  static const ExecBackendOps *ops;
  static char *failure;
  g_mutex_lock (&lock);
  if (ops == NULL && failure == NULL)
    {
      g_autoptr (GPtrArray) dirs = module_dirs ();
      g_autoptr (GString) tried = g_string_new (NULL);
      char *path = NULL;
      for (guint i = 0; i < dirs->len && path == NULL; i++)
        {
          char *p = g_module_build_path (dirs->pdata[i], EXEC_CUDA_MODULE);
          if (g_file_test (p, G_FILE_TEST_EXISTS))
            path = p;
          else
            {
              g_string_append_printf (tried, "%s%s", i ? ", " : "", (char *) dirs->pdata[i]);
              g_free (p);
            }
        }
      if (path == NULL)
        failure = g_strdup_printf ("the cuda backend module (lib%s.so) is not installed "
                                   "(looked in %s) (hint: build with the CUDA toolkit, or "
                                   "set TANDEM_BACKEND_DIR to its folder; --backend cpu "
                                   "runs without it)", EXEC_CUDA_MODULE, tried->str);
      else
        {
          /* LOCAL: the module's symbols serve only its ops table */
          GModule *m = g_module_open (path, G_MODULE_BIND_LOCAL);
          gpointer sym = NULL;
          if (m == NULL)
            failure = g_strdup_printf ("cannot load the cuda backend %s: %s (hint: install "
                                       "the CUDA runtime, cuBLAS and NCCL or put their "
                                       "folder on LD_LIBRARY_PATH; --backend cpu runs "
                                       "without them)", path, g_module_error ());
          else if (!g_module_symbol (m, "exec_cuda_ops", &sym) || sym == NULL)
            {
              failure = g_strdup_printf ("%s is not a tandem cuda backend: %s", path,
                                         g_module_error ());
              g_module_close (m);
            }
          else
            {
              g_module_make_resident (m);
              ops = sym;
              backends[1] = ops;
            }
          g_free (path);
        }
    }
  const ExecBackendOps *result = ops;
  if (result == NULL)
    g_set_error_literal (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE, failure);
  g_mutex_unlock (&lock);
  return result;
#else
  g_set_error_literal (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE,
                       "no execution backend 'cuda' in this build (built: cpu; hint: build "
                       "with the CUDA toolkit, cuBLAS and NCCL)");
  return NULL;
#endif
}

const ExecBackendOps *const *
exec_backends (void)
{
  cuda_module_ops (NULL);
  return (const ExecBackendOps *const *) backends;
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
                                       "all_to_all", "send", "recv", "send_recv",
                                       "all_to_allv" };
  G_STATIC_ASSERT (G_N_ELEMENTS (names) == EXEC_COLL_N);
  return (guint) kind < EXEC_COLL_N ? names[kind] : "?";
}

gboolean
exec_coll_alltoallv_check (const ExecGroup *g, const ExecColl *op, gsize elem_bytes,
                           GError **error)
{
  if (!op->send_counts || !op->send_displs || !op->recv_counts || !op->recv_displs)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "all_to_allv on group '%s': counts and displacements are required",
                   g->name);
      return FALSE;
    }
  gint64 send_end = 0, recv_end = 0;
  for (int p = 0; p < g->size; p++)
    {
      if (op->send_counts[p] < 0 || op->send_displs[p] < 0 || op->recv_counts[p] < 0
          || op->recv_displs[p] < 0)
        {
          g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                       "all_to_allv on group '%s': member %d has a negative count or "
                       "displacement", g->name, p);
          return FALSE;
        }
      send_end = MAX (send_end, (gint64) op->send_displs[p] + op->send_counts[p]);
      recv_end = MAX (recv_end, (gint64) op->recv_displs[p] + op->recv_counts[p]);
    }
  if (send_end > G_MAXINT || recv_end > G_MAXINT)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "all_to_allv on group '%s': extents exceed MPI's int counts", g->name);
      return FALSE;
    }
  const char *s = op->send, *r = op->recv;
  gsize sb = (gsize) send_end * elem_bytes, rb = (gsize) recv_end * elem_bytes;
  if (sb && rb && s < r + rb && r < s + sb)
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "all_to_allv on group '%s': send and receive buffers overlap", g->name);
      return FALSE;
    }
  if (g->size == 1 && op->send_counts[0] != op->recv_counts[0])
    {
      g_set_error (error, EXEC_ERROR, EXEC_ERROR_INVALID,
                   "all_to_allv on group '%s': a group of one sends %d elements to itself "
                   "but expects %d", g->name, op->send_counts[0], op->recv_counts[0]);
      return FALSE;
    }
  return TRUE;
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
    case EXEC_COLL_ALL_TO_ALLV:    return PLAN_COLL_ALL_TO_ALL;
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
  if (g_strcmp0 (name, exec_cpu_ops.name) == 0)
    return &exec_cpu_ops;
  if (g_strcmp0 (name, "cuda") == 0)
    return cuda_module_ops (error);
  g_set_error (error, EXEC_ERROR, EXEC_ERROR_UNAVAILABLE,
               "no execution backend '%s' (known: cpu, cuda)", name);
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
  if (exec_cpu_ops.available (NULL))
    return exec_cpu_ops.open (config, error);
  const ExecBackendOps *cuda = cuda_module_ops (NULL);   /* loaded only when it can matter */
  if (cuda != NULL && cuda->available (NULL))
    return cuda->open (config, error);
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
