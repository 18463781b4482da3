/* plan/trace.c - Chrome Trace Event JSON of a program's timeline.
 *
 * Format: the JSON object form with "traceEvents" (Trace Event Format; Perfetto's
 * docs/getting-started/other-formats.md). Complete events ("ph":"X") with ts/dur in
 * microseconds; "M" metadata names each process (rank) and thread (stream); each stream
 * has its own tid so slices never overlap on one track. Flow arrows: "s" on the SEND slice
 * and "f" (binding point "e") on the RECV slice, each with exactly its slice's pid, tid
 * and ts, which both Perfetto and Chrome's viewer bind (shared/reference/conventions.md
 * section 1). Every string goes through json-glib's escaping (a model file name with a
 * quote still gives valid JSON). With a PlanMemory, each stage's process also gets a
 * counter track ("C" events) of its memory over the step (see append_memory). Written by util_output_write (temporary file, then
 * rename; through a FIFO or device, following a symlink); gzipped where the path ends in
 * ".gz" (Perfetto and chrome://tracing open trace.json.gz). */
#include "util/output.h"
#include "plan/program.h"
#include "plan/memory.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Appends `v` as a JSON string, quoted and escaped by json-glib. A trace has few distinct
 * strings (block, collective and stream names, the model and plan), so each is escaped
 * once and kept in `cache`: a tree of every event (JsonBuilder) made the 405B trace 5x
 * slower and 100 MB larger in memory. */
static void
append_str (GString *s, GHashTable *cache, const char *v)
{
  const char *quoted = g_hash_table_lookup (cache, v);
  if (quoted == NULL)
    {
      g_autoptr (JsonNode) n = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (n, v);
      char *text = json_to_string (n, FALSE);
      g_hash_table_insert (cache, g_strdup (v), text);
      quoted = text;
    }
  g_string_append (s, quoted);
}

static void
append_num (GString *s, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.3f", v));
}

static const char *
task_name (const ProgProgram *p, const ProgTask *t, char *buf, gsize len)
{
  switch (t->kind)
    {
    case PROG_TASK_COMPUTE:
      return prog_block (p, t->block)->name;
    case PROG_TASK_COLL:
      g_snprintf (buf, len, "%s %s%s", plan_coll_name (t->coll), plan_axis_name (t->axis),
                  t->role == PROG_ROLE_REGATHER_ATTN ? " (re-gather of the attention input)"
                  : t->role == PROG_ROLE_REGATHER_MLP ? " (re-gather of the MLP input)" : "");
      return buf;
    case PROG_TASK_SEND:
      g_snprintf (buf, len, "send to stage %d", t->peer_stage);
      return buf;
    case PROG_TASK_RECV:
      g_snprintf (buf, len, "recv from stage %d", t->peer_stage);
      return buf;
    case PROG_TASK_COPY:
      g_snprintf (buf, len, "%s layer %d activations",
                  t->phase == PROG_PHASE_FORWARD ? "offload (device to host)"
                                                 : "reload (host to device)", t->layer);
      return buf;
    default:
      return "?";
    }
}

/* How one timeline is laid out in the file: process ids, names and order, flow ids. */
typedef struct {
  const char *label;      /* "predicted", "measured" */
  gboolean    merged;     /* two timelines: pid 2 rank (+1 predicted), names "rank r LABEL" */
  int         pid_add;    /* 0 measured / single, 1 predicted in a merged trace */
  guint32     flow_base;  /* added to flow ids so two timelines' arrows stay apart */
} TraceLane;

static void
append_header (GString *s, GHashTable *cache, const ProgProgram *p, const char *label)
{
  g_string_append (s, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"tool\":\"tandem\",\"timeline\":");
  append_str (s, cache, label);
  g_string_append (s, ",\"model\":");
  append_str (s, cache, p->model->name);
  g_autofree char *plan_str = plan_to_string (&p->plan);
  g_string_append (s, ",\"plan\":");
  append_str (s, cache, plan_str);
  g_string_append (s, "},\"traceEvents\":[\n");
}

/* A task's slice in integer nanoseconds, as printed (append_timeline rounds the same way). */
typedef struct {
  guint32 task;
  gint64  start, end;
} TraceSlice;

static gint
trace_slice_cmp (gconstpointer a, gconstpointer b)
{
  const TraceSlice *x = a, *y = b;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->end != y->end)
    return x->end > y->end ? -1 : 1;   /* the enclosing slice first */
  return x->task < y->task ? -1 : x->task > y->task;
}

/* Sub-tracks for slices of one stream that run at once. A measured stream can: the CPU
 * backend posts its collectives as non-blocking MPI calls, and with SP the backward's
 * re-gather of a block input is still in flight when the next reduce-scatter starts (up
 * to 126 us in a TP 2 run). Complete events on one track must nest, so a slice that
 * partly overlaps another goes to the first sub-track where it nests or follows: lane[i]
 * is 0 for the stream's own track; *lanes_out[stage x stream] the sub-tracks used. */
static guint8 *
trace_lanes (const ProgProgram *p, const ProgTaskTime *times, guint8 **lanes_out)
{
  guint8 *lane = g_new0 (guint8, MAX (p->tasks->len, 1));
  guint8 *lanes = g_new0 (guint8, (gsize) MAX (p->n_stages, 1) * PROG_STREAM_N);
  for (int st = 0; st < p->n_stages; st++)
    for (int k = 0; k < PROG_STREAM_N; k++)
      {
        g_autoptr (GArray) sl = g_array_new (FALSE, FALSE, sizeof (TraceSlice));
        const ProgStage *stage = &p->stages[st];
        for (guint32 i = stage->first; i < stage->first + stage->n_tasks; i++)
          if (prog_task (p, i)->stream == k)
            {
              TraceSlice x = { i, (gint64) llround (times[i].start_s * 1e9),
                               (gint64) llround (times[i].end_s * 1e9) };
              x.end = MAX (x.end, x.start);
              g_array_append_val (sl, x);
            }
        g_array_sort (sl, trace_slice_cmp);
        /* per sub-track, the ends of the slices still open (a stack) */
        g_autoptr (GPtrArray) open = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
        for (guint j = 0; j < sl->len; j++)
          {
            const TraceSlice *x = &g_array_index (sl, TraceSlice, j);
            guint l = 0;
            for (;; l++)
              {
                if (l == open->len)
                  g_ptr_array_add (open, g_array_new (FALSE, FALSE, sizeof (gint64)));
                GArray *ends = g_ptr_array_index (open, l);
                while (ends->len > 0 && g_array_index (ends, gint64, ends->len - 1) <= x->start)
                  g_array_set_size (ends, ends->len - 1);
                if (ends->len == 0 || x->end <= g_array_index (ends, gint64, ends->len - 1)
                    || l == 255)
                  {
                    g_array_append_val (ends, x->end);
                    break;
                  }
              }
            lane[x->task] = (guint8) l;
          }
        lanes[st * PROG_STREAM_N + k] = (guint8) MAX (open->len, 1);
      }
  *lanes_out = lanes;
  return lane;
}

/* The track of stream k's sub-track l (0: the stream's own, tid k) */
#define TRACE_TID(k, l) ((k) + 100 * (l))

static void
append_timeline (GString *s, GHashTable *cache, gboolean *first_p, const ProgProgram *p,
                 const ProgTaskTime *times, const int *stage_rank, const TraceLane *lane)
{
  const char *label = lane->label;
  gboolean first = *first_p;
  guint8 *sub_count = NULL;
  g_autofree guint8 *sub = trace_lanes (p, times, &sub_count);
#define SEP() G_STMT_START { if (!first) g_string_append (s, ",\n"); first = FALSE; } G_STMT_END
#define PID(rank) (lane->merged ? 2 * (rank) + lane->pid_add : (rank))
  for (int st = 0; st < p->n_stages; st++)
    {
      int rank = stage_rank ? stage_rank[st] : st, pid = PID (rank);
      SEP ();
      g_autofree char *pname = lane->merged
        ? g_strdup_printf ("rank %d %s (pipeline stage %d)", rank, label, st)
        : g_strdup_printf ("rank %d (pipeline stage %d, %s)", pid, st, label);
      g_string_append_printf (s, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,"
                              "\"args\":{\"name\":", pid);
      append_str (s, cache, pname);
      g_string_append (s, "}}");
      SEP ();
      g_string_append_printf (s, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,"
                              "\"args\":{\"sort_index\":%d}}", pid,
                              lane->merged ? 2 * st + lane->pid_add : st);
      for (int k = 0; k < PROG_STREAM_N; k++)
        {
          if (k == PROG_STREAM_EP && p->moe.experts <= 0)
            continue;   /* the ep track only where the model has experts */
          if (k == PROG_STREAM_HOST && p->plan.cpu_offload_layers <= 0)
            continue;   /* the offload track only where the plan offloads */
          SEP ();
          g_string_append_printf (s, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,"
                                  "\"tid\":%d,\"args\":{\"name\":", pid, k);
          append_str (s, cache, prog_stream_name (k));
          g_string_append (s, "}}");
          SEP ();
          g_string_append_printf (s, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,"
                                  "\"tid\":%d,\"args\":{\"sort_index\":%d}}", pid, k, k);
          for (int l = 1; l < sub_count[st * PROG_STREAM_N + k]; l++)
            {
              g_autofree char *tname = g_strdup_printf ("%s (%d)", prog_stream_name (k), l + 1);
              SEP ();
              g_string_append_printf (s, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,"
                                      "\"tid\":%d,\"args\":{\"name\":", pid,
                                      TRACE_TID (k, l));
              append_str (s, cache, tname);
              g_string_append (s, "}}");
              SEP ();
              g_string_append_printf (s, "{\"ph\":\"M\",\"name\":\"thread_sort_index\","
                                      "\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
                                      pid, TRACE_TID (k, l), k);
            }
        }
    }
  g_free (sub_count);

  char namebuf[64];
  for (guint32 i = 0; i < p->tasks->len; i++)
    {
      const ProgTask *t = prog_task (p, i);
      const ProgTaskTime *tt = &times[i];
      int pid = PID (stage_rank ? stage_rank[t->stage] : t->stage);
      /* start and end rounded to the printed nanosecond first, the duration their
       * difference: each rounded on its own, a slice's printed end passed the next
       * slice's printed start on its track by 1 ns, a partial overlap Perfetto's JSON
       * importer does not nest */
      double ts = round (tt->start_s * 1e9) / 1e3;
      double dur = MAX (round (tt->end_s * 1e9) - round (tt->start_s * 1e9), 0) / 1e3;
      SEP ();
      g_string_append (s, "{\"ph\":\"X\",\"cat\":");
      append_str (s, cache, t->kind == PROG_TASK_COMPUTE ? "compute"
                            : t->kind == PROG_TASK_COPY ? "offload" : prog_comm_name (t->comm));
      g_string_append (s, ",\"name\":");
      append_str (s, cache, task_name (p, t, namebuf, sizeof namebuf));
      g_string_append_printf (s, ",\"pid\":%d,\"tid\":%d,\"ts\":", pid,
                              TRACE_TID (t->stream, sub[i]));
      append_num (s, ts);
      g_string_append (s, ",\"dur\":");
      append_num (s, dur);
      g_string_append_printf (s, ",\"args\":{\"task\":%u,\"phase\":", t->id);
      append_str (s, cache, prog_phase_name (t->phase));
      g_string_append_printf (s, ",\"micro_batch\":%d,\"chunk\":%d,\"layer\":%d", t->mb,
                              t->chunk, t->layer);
      if (t->kind != PROG_TASK_COMPUTE)
        {
          g_string_append (s, ",\"bytes\":");
          append_num (s, t->bytes);
        }
      else
        {
          g_string_append (s, ",\"flops\":");
          append_num (s, t->hw_flops);
        }
      g_string_append (s, "}}");
      if (t->kind == PROG_TASK_SEND || t->kind == PROG_TASK_RECV)
        {
          /* the flow id is the SEND's task id on both ends */
          guint32 flow = lane->flow_base
                         + (t->kind == PROG_TASK_SEND ? t->id : (guint32) t->peer_task);
          SEP ();
          g_string_append_printf (s, "{\"ph\":\"%s\",\"cat\":\"pp\",\"name\":\"pp\",\"id\":%u,"
                                  "\"pid\":%d,\"tid\":%d,\"bp\":\"e\",\"ts\":",
                                  t->kind == PROG_TASK_SEND ? "s" : "f", flow, pid,
                                  TRACE_TID (t->stream, sub[i]));
          append_num (s, ts);
          g_string_append (s, "}");
        }
    }
#undef SEP
#undef PID
  *first_p = first;
}

/* One change of a stage's stored activations: +bytes when a (micro-batch, chunk) starts
 * its first forward task, -bytes when its last backward task ends. */
typedef struct {
  double t_s;
  double delta;
} MemEvent;

static gint
mem_event_cmp (gconstpointer a, gconstpointer b)
{
  const MemEvent *x = a, *y = b;
  if (x->t_s != y->t_s)
    return x->t_s < y->t_s ? -1 : 1;
  /* at one instant a release comes before an allocation, as the allocator sees them on
   * one compute stream (the backward that ends frees before the next forward starts) */
  return (x->delta > y->delta) - (x->delta < y->delta);
}

/* Counter tracks "memory GiB" per stage: the series "activations" (stored activations of
 * the micro-batches in flight) and "total" (model states, buffers and the reserve on top,
 * as plan/memory.c counts them: reserve = fraction x counted + fixed). Each (micro-batch,
 * chunk) holds the stage's activations / in-flight count, so where the schedule holds as
 * many at once as plan_memory_inflight says, the counters peak at exactly the memory
 * model's figures for a stage whose chunks store alike; where they do not (the embedding
 * or the loss alone in a chunk, uneven splits, dense and MoE layers mixed), memory.c sums
 * each chunk's own bytes over the units in flight and these counters show their mean. */
static void
append_memory (GString *s, gboolean *first_p, const ProgProgram *p, const ProgTaskTime *times,
               const int *stage_rank, const TraceLane *lane, const PlanMemory *mem)
{
  gboolean first = *first_p;
#define SEP() G_STMT_START { if (!first) g_string_append (s, ",\n"); first = FALSE; } G_STMT_END
  const double gib = 1024.0 * 1024.0 * 1024.0;
  for (int st = 0; st < p->n_stages && st < mem->n_stages; st++)
    {
      const PlanMemStage *ms = &mem->stages[st];
      int rank = stage_rank ? stage_rank[st] : st;
      int pid = lane->merged ? 2 * rank + lane->pid_add : rank;
      double unit = ms->inflight_microbatches > 0
                    ? (double) ms->bytes[PLAN_MEM_ACTIVATIONS] / ms->inflight_microbatches : 0;
      double counted_static = 0;
      for (int k = 0; k < PLAN_MEM_RESERVE; k++)
        if (k != PLAN_MEM_ACTIVATIONS)
          counted_static += (double) ms->bytes[k];
      /* first forward start and last backward end of each (micro-batch, chunk) */
      g_autoptr (GHashTable) fwd = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                          g_free);
      g_autoptr (GHashTable) bwd = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                          g_free);
      const ProgStage *stage = &p->stages[st];
      for (guint32 i = stage->first; i < stage->first + stage->n_tasks; i++)
        {
          const ProgTask *t = prog_task (p, i);
          if (t->kind != PROG_TASK_COMPUTE || t->mb < 0
              || (t->phase != PROG_PHASE_FORWARD && t->phase != PROG_PHASE_BACKWARD))
            continue;
          gpointer key = GINT_TO_POINTER (((int) t->mb << 8 | (t->chunk & 0xff)) + 1);
          gboolean is_fwd = t->phase == PROG_PHASE_FORWARD;
          GHashTable *h = is_fwd ? fwd : bwd;
          double *v = g_hash_table_lookup (h, key);
          double when = is_fwd ? times[i].start_s : times[i].end_s;
          if (v == NULL)
            {
              v = g_new (double, 1);
              *v = when;
              g_hash_table_insert (h, key, v);
            }
          else if (is_fwd ? when < *v : when > *v)
            *v = when;
        }
      g_autoptr (GArray) ev = g_array_new (FALSE, FALSE, sizeof (MemEvent));
      GHashTableIter it;
      gpointer key, val;
      g_hash_table_iter_init (&it, fwd);
      while (g_hash_table_iter_next (&it, &key, &val))
        {
          MemEvent e = { *(double *) val, unit };
          g_array_append_val (ev, e);
          double *end = g_hash_table_lookup (bwd, key);
          if (end != NULL)
            {
              MemEvent f = { *end, -unit };
              g_array_append_val (ev, f);
            }
        }
      g_array_sort (ev, mem_event_cmp);
      double act = 0;
      for (guint i = 0; i <= ev->len; i++)
        {
          /* one counter value per instant: all changes at the same time applied first */
          double t = i == 0 ? 0.0 : g_array_index (ev, MemEvent, i - 1).t_s;
          if (i > 0)
            {
              act += g_array_index (ev, MemEvent, i - 1).delta;
              if (i < ev->len && g_array_index (ev, MemEvent, i).t_s == t)
                continue;
            }
          act = MAX (act, 0.0);
          double total = (counted_static + act) * (1.0 + mem->reserve_fraction)
                         + (double) mem->reserve_fixed_bytes;
          SEP ();
          g_string_append_printf (s, "{\"ph\":\"C\",\"name\":\"memory GiB\",\"pid\":%d,"
                                  "\"ts\":", pid);
          append_num (s, t * 1e6);
          g_string_append (s, ",\"args\":{\"activations\":");
          append_num (s, act / gib);
          g_string_append (s, ",\"total\":");
          append_num (s, total / gib);
          g_string_append (s, "}}");
        }
    }
#undef SEP
  *first_p = first;
}

/* Whether `path` names a gzip file (".gz", any case), as Perfetto opens `trace.json.gz`. */
static gboolean
gzip_name (const char *path)
{
  gsize n = strlen (path);
  return n > 3 && g_ascii_strcasecmp (path + n - 3, ".gz") == 0;
}

/* `s` gzipped in memory (GLib's zlib converter; gio is linked already). --trace t.json.gz
 * wrote plain JSON under a name every viewer and gunzip takes for gzip. */
static GBytes *
gzip_bytes (const GString *s, GError **error)
{
  g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, -1);
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();
  g_autoptr (GOutputStream) out = g_converter_output_stream_new (mem, G_CONVERTER (z));
  if (!g_output_stream_write_all (out, s->str, s->len, NULL, NULL, error)
      || !g_output_stream_close (out, NULL, error))
    return NULL;
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
}

static gboolean
write_file (const char *path, GString *s, GError **error)
{
  g_string_append (s, "\n]}\n");

  /* a file is replaced atomically (readers never see half a trace), a symlink followed,
   * a FIFO or device written through (util/output.h) */
  GError *local = NULL;
  gboolean ok;
  if (gzip_name (path))
    {
      g_autoptr (GBytes) gz = gzip_bytes (s, &local);
      gsize len = 0;
      const char *data = gz ? g_bytes_get_data (gz, &len) : NULL;
      ok = gz != NULL && util_output_write (path, data, len, &local);
    }
  else
    ok = util_output_write (path, s->str, s->len, &local);
  g_string_free (s, TRUE);
  if (!ok)
    {
      g_set_error (error, PLAN_ERROR, PLAN_ERROR_USAGE, "cannot write trace: %s",
                   local->message);
      g_error_free (local);
    }
  return ok;
}

gboolean
prog_trace_write (const ProgProgram *p, const ProgTaskTime *times, const int *stage_rank,
                  const char *label, const char *path, GError **error)
{
  return prog_trace_write_memory (p, times, stage_rank, label, NULL, path, error);
}

static GString *
trace_build (const ProgProgram *p, const ProgTaskTime *times, const int *stage_rank,
             const char *label, const PlanMemory *mem)
{
  GString *s = g_string_sized_new (256 * p->tasks->len + 4096);
  g_autoptr (GHashTable) cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  append_header (s, cache, p, label);
  gboolean first = TRUE;
  TraceLane lane = { label, FALSE, 0, 0 };
  append_timeline (s, cache, &first, p, times, stage_rank, &lane);
  if (mem != NULL)
    append_memory (s, &first, p, times, stage_rank, &lane, mem);
  return s;
}

gboolean
prog_trace_write_memory (const ProgProgram *p, const ProgTaskTime *times,
                         const int *stage_rank, const char *label, const PlanMemory *mem,
                         const char *path, GError **error)
{
  return write_file (path, trace_build (p, times, stage_rank, label, mem), error);
}

char *
prog_trace_to_data (const ProgProgram *p, const ProgTaskTime *times, const int *stage_rank,
                    const char *label, gsize *len)
{
  GString *s = trace_build (p, times, stage_rank, label, NULL);
  g_string_append (s, "\n]}\n");
  if (len != NULL)
    *len = s->len;
  return g_string_free (s, FALSE);
}

gboolean
prog_trace_write_merged (const ProgProgram *measured, const ProgTaskTime *measured_times,
                         const ProgProgram *predicted, const ProgTaskTime *predicted_times,
                         const int *stage_rank, const char *path, GError **error)
{
  GString *s = g_string_sized_new (256 * (measured->tasks->len + predicted->tasks->len) + 4096);
  g_autoptr (GHashTable) cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  append_header (s, cache, measured, "measured and predicted");
  gboolean first = TRUE;
  TraceLane m = { "measured", TRUE, 0, 0 };
  append_timeline (s, cache, &first, measured, measured_times, stage_rank, &m);
  TraceLane p = { "predicted", TRUE, 1, measured->tasks->len };
  append_timeline (s, cache, &first, predicted, predicted_times, stage_rank, &p);
  return write_file (path, s, error);
}
