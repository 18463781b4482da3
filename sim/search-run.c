/* sim/search-run.c - run a search over a range of candidates on a GThreadPool.
 *
 * Two phases. Screening (every candidate, in chunks over the threads): plan_resolve
 * (invalid), plan_memory_compute with the headroom (out of memory), and the coarse lower
 * bound (search-bound.c: shared by the candidates that differ only in sharding, DP
 * overlap and rank order, so built once per group). Simulating: the candidates that fit,
 * sorted by (coarse score, index), are taken in the order of their full bound without
 * computing every full bound: a candidate's full bound (its own reduced program) is
 * computed when its coarse score comes up, into a heap; the heap's best goes to
 * simulation once no candidate still waiting has a lower coarse score (coarse <= full,
 * so none of them can have a lower full score). A candidate whose coarse or full score is
 * above the K-th best score found so far is pruned, and when the next coarse score and
 * the heap's best both are, every remaining one is. The top K is therefore exact whatever
 * the thread timing; only the split between pruned and simulated can vary between
 * runs. */
#include "sim/search-private.h"

#include <string.h>

typedef struct {
  guint64 index;
  double  bound_score;   /* coarse in `fits`; full in `ready` */
  double  bound_s;
  guint64 peak_bytes;
} Fit;

typedef struct {
  const SearchSpace *space;
  SearchResult      *res;
  const SearchRunOptions *opts;
  GMutex             lock;
  /* screening */
  guint64            first, last, chunk;
  guint64            screened;
  GArray            *fits;      /* Fit */
  /* simulating */
  guint64            cursor;
  GArray            *ready;     /* Fit with its full bound: a min-heap by (score, index) */
  GArray            *best;      /* SearchRow of the top K so far, best first */
  gint64             last_progress_us;
  GError            *error;
} Run;

SearchResult *
search_result_new (void)
{
  SearchResult *r = g_new0 (SearchResult, 1);
  r->invalid_reasons = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r->rows = g_array_new (FALSE, FALSE, sizeof (SearchRow));
  r->top = g_array_new (FALSE, FALSE, sizeof (guint));
  return r;
}

void
search_result_free (SearchResult *r)
{
  if (r == NULL)
    return;
  g_clear_pointer (&r->invalid_reasons, g_hash_table_unref);
  g_clear_pointer (&r->rows, g_array_unref);
  g_clear_pointer (&r->top, g_array_unref);
  g_free (r);
}

/* "tp = 3 does not divide the 32 heads (hint: ...)" -> "tp = N1 does not divide the N2
 * heads": reasons grouped by kind, not by numbers, each number named by its place (a
 * number that came back had taken its first name, so one kind split in two where two
 * figures happened to agree: "ep = N1 ... N1 experts" at ep 8 of 8 experts beside "ep =
 * N1 ... N2 experts", and "N1 ... N1" read as one figure). A key is its own key ("N1"
 * follows a letter: no number). */
static char *
reason_key (const char *message)
{
  GString *k = g_string_new (NULL);
  g_autoptr (GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  const char *hint = strstr (message, " (hint:");
  const char *end = hint ? hint : message + strlen (message);
  for (const char *p = message; p < end; p++)
    {
      /* a number, not a digit inside a name such as Interleaved1F1B, nor one that starts
       * a word: a constant with its unit ("16M", "64M" were "NM") or a name ("1F1B") */
      const char *q = p;
      while (q + 1 < end && (g_ascii_isdigit (q[1]) || q[1] == '.' || q[1] == ','))
        q++;
      if (g_ascii_isdigit (*p) && (p == message || !g_ascii_isalnum (p[-1]))
          && !(q + 1 < end && g_ascii_isalpha (q[1])))
        {
          /* a trailing '.' or ',' ends the sentence, not the number */
          const char *last = q;
          while (last > p && (*last == '.' || *last == ','))
            last--;
          g_ptr_array_add (seen, g_strndup (p, (gsize) (last - p + 1)));
          g_string_append_printf (k, "N%u", seen->len);
          p = last;
        }
      else
        g_string_append_c (k, *p);
    }
  /* a count's noun in the plural whatever the count ("the 1 KV head" beside "the 2 KV
   * heads" were two kinds): the nouns the plan's messages count */
  static const char *const nouns[] = { " KV head", " pipeline stage", " accounted slot",
                                       " model chunk", " layer" };
  for (guint i = 0; i < G_N_ELEMENTS (nouns); i++)
    {
      g_autofree char *one = g_strconcat (nouns[i], " ", NULL);
      g_autofree char *many = g_strconcat (nouns[i], "s ", NULL);
      char *at;
      gsize from = 0;
      while ((at = strstr (k->str + from, one)) != NULL)
        {
          const gsize pos = (gsize) (at - k->str);
          /* only after a count: "N3 layer " or "N3 middle pipeline stage " (a count
           * "N<k>" among the three words before the noun) */
          gboolean counted = FALSE;
          const char *b = at;   /* the blank before the noun */
          for (int w = 0; w < 3 && !counted && b > k->str && *b == ' '; w++)
            {
              const char *ws = b;
              while (ws > k->str && ws[-1] != ' ')
                ws--;
              gsize len = (gsize) (b - ws);
              counted = len >= 2 && ws[0] == 'N' && strspn (ws + 1, "0123456789") == len - 1;
              b = ws > k->str ? ws - 1 : k->str;
            }
          if (counted)
            {
              g_string_erase (k, (gssize) pos, (gssize) strlen (one));
              g_string_insert (k, (gssize) pos, many);
              from = pos + strlen (many);
            }
          else
            from = pos + strlen (one);
        }
    }
  return g_string_free (k, FALSE);
}

static void
add_reason (GHashTable *reasons, const char *message, guint count)
{
  g_autofree char *key = reason_key (message);
  guint had = GPOINTER_TO_UINT (g_hash_table_lookup (reasons, key));
  if (had == 0)
    g_hash_table_insert (reasons, g_steal_pointer (&key), GUINT_TO_POINTER (count));
  else
    g_hash_table_insert (reasons, g_strdup (key), GUINT_TO_POINTER (had + count));
}

/* (score, peak, index): the ranking's order. */
static int
row_cmp (const SearchRow *a, const SearchRow *b)
{
  if (a->score != b->score)
    return a->score < b->score ? -1 : 1;
  if (a->peak_bytes != b->peak_bytes)
    return a->peak_bytes < b->peak_bytes ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

static int
fit_cmp (gconstpointer pa, gconstpointer pb)
{
  const Fit *a = pa, *b = pb;
  if (a->bound_score != b->bound_score)
    return a->bound_score < b->bound_score ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

static void
progress (Run *run, const char *phase, guint64 done, guint64 total, gboolean force)
{
  if (run->opts->progress == NULL)
    return;
  gint64 now = g_get_monotonic_time ();
  if (!force && now - run->last_progress_us < 100000)
    return;
  run->last_progress_us = now;
  /* while simulating, done splits into simulated and pruned (and those in flight);
   * the caller holds run->lock or the threads have ended */
  gboolean sim = g_str_equal (phase, "simulating");
  run->opts->progress (phase, done, total, sim ? run->res->simulated : 0,
                       sim ? run->res->pruned : 0, run->opts->progress_data);
}

/* ---- screening --------------------------------------------------------------------- */

static void
screen_chunk (gpointer data, gpointer user_data)
{
  Run *run = user_data;
  guint64 lo = GPOINTER_TO_SIZE (data) - 1, hi = MIN (lo + run->chunk, run->last);
  const SearchSpace *s = run->space;
  const SearchSpec *spec = search_space_spec (s);
  g_autoptr (GHashTable) reasons = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          NULL);
  g_autoptr (GArray) fits = g_array_new (FALSE, FALSE, sizeof (Fit));
  guint64 invalid = 0, oom = 0;
  gboolean closest_set = FALSE;
  guint64 closest_index = 0, closest_peak = 0, closest_cap = 0;
  for (guint64 i = lo; i < hi; i++)
    {
      const SearchCand *c = search_cand (s, i);
      Plan plan;
      search_cand_to_plan (s, c, &plan);
      g_autoptr (GError) error = NULL;
      /* what the stack refuses, predict refuses (cli/cmd-predict.c): invalid */
      if ((spec->stack != NULL && (!plan_check_stack (&plan, spec->stack, &error)
                                   || !plan_check_stack_model (&plan, spec->model,
                                                               spec->stack, &error)))
          || !plan_resolve (&plan, spec->model, spec->cluster, &error))
        {
          invalid++;
          add_reason (reasons, error->message, 1);
          plan_clear (&plan);
          continue;
        }
      /* the memory that sim_predict reports: with the stack's unset plan fields filled
       * in first (ZeRO-2's gradient sync and fp32 accumulation: FSDP2 holds unsharded
       * fp32 gradients through the step, which plan_memory_compute counts only once the
       * plan says so) */
      sim_plan_apply_stack (&plan, &spec->sim.cost);
      PlanMemory mem;
      plan_memory_compute (spec->model, &plan, spec->cluster, &mem);
      guint64 peak = mem.peak_bytes, cap = mem.capacity_bytes;
      plan_memory_clear (&mem);
      if ((double) peak + spec->headroom_bytes > (double) cap)
        {
          oom++;
          if (!closest_set || peak < closest_peak)
            closest_set = TRUE, closest_index = i, closest_peak = peak, closest_cap = cap;
          plan_clear (&plan);
          continue;
        }
      double bound;
      if (!search_cand_coarse_bound (s, c, &plan, &bound, &error))
        {
          invalid++;
          add_reason (reasons, error->message, 1);
          plan_clear (&plan);
          continue;
        }
      Fit f = { i, search_score (s, bound, c->gpus), bound, peak };
      g_array_append_val (fits, f);
      plan_clear (&plan);
    }
  g_mutex_lock (&run->lock);
  SearchResult *r = run->res;
  r->invalid += invalid;
  r->oom += oom;
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, reasons);
  while (g_hash_table_iter_next (&it, &k, &v))
    add_reason (r->invalid_reasons, k, GPOINTER_TO_UINT (v));
  if (closest_set && (!r->closest_set || closest_peak < r->closest_peak_bytes
                      || (closest_peak == r->closest_peak_bytes
                          && closest_index < r->closest_index)))
    {
      r->closest_set = TRUE;
      r->closest_index = closest_index;
      r->closest_peak_bytes = closest_peak;
      r->closest_capacity_bytes = closest_cap;
    }
  g_array_append_vals (run->fits, fits->data, fits->len);
  run->screened += hi - lo;
  progress (run, "screening", run->screened, run->last - run->first, FALSE);
  g_mutex_unlock (&run->lock);
}

/* ---- simulating -------------------------------------------------------------------- */

static void
best_insert (Run *run, const SearchRow *row)
{
  int k = search_space_spec (run->space)->top_k;
  guint pos = run->best->len;
  while (pos > 0 && row_cmp (row, &g_array_index (run->best, SearchRow, pos - 1)) < 0)
    pos--;
  if ((int) pos >= k)
    return;
  g_array_insert_val (run->best, pos, *row);
  if ((int) run->best->len > k)
    g_array_set_size (run->best, k);
}

/* The heap of candidates with their full bound (fit_cmp order). */
static void
ready_push (GArray *h, const Fit *f)
{
  g_array_append_val (h, *f);
  Fit *a = (Fit *) h->data;
  guint i = h->len - 1;
  while (i > 0 && fit_cmp (&a[i], &a[(i - 1) / 2]) < 0)
    {
      Fit t = a[i];
      a[i] = a[(i - 1) / 2];
      a[(i - 1) / 2] = t;
      i = (i - 1) / 2;
    }
}

static Fit
ready_pop (GArray *h)
{
  Fit *a = (Fit *) h->data;
  Fit top = a[0];
  a[0] = a[h->len - 1];
  g_array_set_size (h, h->len - 1);
  guint n = h->len, i = 0;
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i;
      if (l < n && fit_cmp (&a[l], &a[m]) < 0)
        m = l;
      if (r < n && fit_cmp (&a[r], &a[m]) < 0)
        m = r;
      if (m == i)
        break;
      Fit t = a[i];
      a[i] = a[m];
      a[m] = t;
      i = m;
    }
  return top;
}

static void
simulate_one (Run *run, const Fit *f)
{
  const SearchSpace *s = run->space;
  g_autoptr (GError) error = NULL;
  g_autoptr (SimPrediction) p = search_candidate_predict (s, f->index, FALSE, &error);
  g_mutex_lock (&run->lock);
  if (p == NULL)
    {
      run->res->invalid++;
      g_autofree char *why = g_strdup_printf ("simulation failed: %s", error->message);
      add_reason (run->res->invalid_reasons, why, 1);
    }
  else
    {
      SearchRow row = { 0 };
      row.index = f->index;
      row.step_time_s = p->result->step_time_s;
      row.score = search_score (s, row.step_time_s, p->plan.world_size);
      row.bound_s = f->bound_s;
      row.tokens_per_s = p->result->tokens_per_s;
      row.mfu = p->result->mfu[MODEL_FLOPS_PALM];
      row.hfu = p->result->hfu;
      row.peak_bytes = f->peak_bytes;
      g_array_append_val (run->res->rows, row);
      run->res->simulated++;
      best_insert (run, &row);
    }
  progress (run, "simulating", run->cursor, run->fits->len, FALSE);
  g_mutex_unlock (&run->lock);
}

/* The full bound of a fit (its coarse bound replaced); FALSE: counted invalid. */
static gboolean
full_bound (Run *run, Fit *f)
{
  const SearchSpace *s = run->space;
  const SearchSpec *spec = search_space_spec (s);
  const SearchCand *c = search_cand (s, f->index);
  Plan plan;
  search_cand_to_plan (s, c, &plan);
  g_autoptr (GError) error = NULL;
  double bound = 0;
  gboolean ok = plan_resolve (&plan, spec->model, spec->cluster, &error)
                && search_cand_bound (s, c, &plan, &bound, &error);
  plan_clear (&plan);
  if (!ok)
    {
      g_mutex_lock (&run->lock);
      run->res->invalid++;
      add_reason (run->res->invalid_reasons, error->message, 1);
      g_mutex_unlock (&run->lock);
      return FALSE;
    }
  f->bound_s = bound;
  f->bound_score = search_score (s, bound, c->gpus);
  return TRUE;
}

static void
simulate_worker (gpointer data, gpointer user_data)
{
  Run *run = user_data;
  const SearchSpec *spec = search_space_spec (run->space);
  guint64 n = run->fits->len;
  gboolean prune = !run->opts->no_prune;
  for (;;)
    {
      g_mutex_lock (&run->lock);
      if (run->error != NULL)
        {
          g_mutex_unlock (&run->lock);
          return;
        }
      const SearchRow *kth = prune && (int) run->best->len >= spec->top_k
                             ? &g_array_index (run->best, SearchRow, run->best->len - 1) : NULL;
      const Fit *next = run->cursor < n ? &g_array_index (run->fits, Fit, run->cursor) : NULL;
      const Fit *top = run->ready->len > 0 ? &g_array_index (run->ready, Fit, 0) : NULL;
      if (top != NULL && (next == NULL || top->bound_score <= next->bound_score))
        {
          /* no candidate still waiting can have a lower full bound than the heap's best */
          Fit f = ready_pop (run->ready);
          if (kth != NULL && f.bound_score > kth->score)
            {
              run->res->pruned++;
              g_mutex_unlock (&run->lock);
              continue;
            }
          g_mutex_unlock (&run->lock);
          simulate_one (run, &f);
          continue;
        }
      if (next == NULL)
        {
          /* nothing waiting; a full bound still being computed is its thread's */
          g_mutex_unlock (&run->lock);
          return;
        }
      if (kth != NULL && next->bound_score > kth->score)
        {
          /* sorted by coarse bound, and the heap's best is worse still: all are out */
          run->res->pruned += (n - run->cursor) + run->ready->len;
          run->cursor = n;
          g_array_set_size (run->ready, 0);
          /* no "done" report here: simulations of other threads may still be in flight;
           * search_run reports the phase's end with the final counts */
          g_mutex_unlock (&run->lock);
          return;
        }
      Fit f = *next;
      run->cursor++;
      g_mutex_unlock (&run->lock);
      if (!full_bound (run, &f))
        continue;
      g_mutex_lock (&run->lock);
      ready_push (run->ready, &f);
      g_mutex_unlock (&run->lock);
    }
}

static int
row_index_cmp (gconstpointer pa, gconstpointer pb)
{
  const SearchRow *a = pa, *b = pb;
  return a->index < b->index ? -1 : a->index > b->index;
}

static const SearchRow *sort_rows;

static int
top_cmp (gconstpointer pa, gconstpointer pb)
{
  return row_cmp (&sort_rows[*(const guint *) pa], &sort_rows[*(const guint *) pb]);
}

void
search_result_rank (const SearchSpace *s, SearchResult *r)
{
  g_array_sort (r->rows, row_index_cmp);
  g_autofree guint *order = g_new (guint, r->rows->len + 1);
  for (guint i = 0; i < r->rows->len; i++)
    {
      order[i] = i;
      g_array_index (r->rows, SearchRow, i).place = 0;
    }
  /* qsort with a file-level pointer: ranking runs on one thread */
  sort_rows = (const SearchRow *) r->rows->data;
  qsort (order, r->rows->len, sizeof (guint), top_cmp);
  sort_rows = NULL;
  g_array_set_size (r->top, 0);
  guint k = MIN ((guint) search_space_spec (s)->top_k, r->rows->len);
  for (guint i = 0; i < k; i++)
    {
      g_array_append_val (r->top, order[i]);
      g_array_index (r->rows, SearchRow, order[i]).place = (int) i + 1;
    }
}

void
search_result_merge (const SearchSpace *s, SearchResult *into, const SearchResult *other)
{
  into->enumerated += other->enumerated;
  into->invalid += other->invalid;
  into->oom += other->oom;
  into->pruned += other->pruned;
  into->simulated += other->simulated;
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, other->invalid_reasons);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      guint had = GPOINTER_TO_UINT (g_hash_table_lookup (into->invalid_reasons, k));
      g_hash_table_insert (into->invalid_reasons, g_strdup (k),
                           GUINT_TO_POINTER (had + GPOINTER_TO_UINT (v)));
    }
  if (other->closest_set
      && (!into->closest_set || other->closest_peak_bytes < into->closest_peak_bytes
          || (other->closest_peak_bytes == into->closest_peak_bytes
              && other->closest_index < into->closest_index)))
    {
      into->closest_set = TRUE;
      into->closest_index = other->closest_index;
      into->closest_peak_bytes = other->closest_peak_bytes;
      into->closest_capacity_bytes = other->closest_capacity_bytes;
    }
  g_array_append_vals (into->rows, other->rows->data, other->rows->len);
  into->wall_s = MAX (into->wall_s, other->wall_s);
  search_result_rank (s, into);
}

SearchResult *
search_run (const SearchSpace *s, const SearchRunOptions *opts, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  SearchRunOptions dflt = { 0 };
  if (opts == NULL)
    opts = &dflt;
  Run run = { 0 };
  run.space = s;
  run.opts = opts;
  run.res = search_result_new ();
  run.first = opts->first;
  run.last = opts->last > 0 ? MIN (opts->last, search_space_size (s))
                            : search_space_size (s);
  if (run.first > run.last)
    run.first = run.last;
  run.res->enumerated = run.last - run.first;
  run.fits = g_array_new (FALSE, FALSE, sizeof (Fit));
  run.best = g_array_new (FALSE, FALSE, sizeof (SearchRow));
  run.ready = g_array_new (FALSE, FALSE, sizeof (Fit));
  g_mutex_init (&run.lock);
  int threads = opts->threads > 0 ? opts->threads : (int) g_get_num_processors ();
  run.chunk = 64;

  GThreadPool *pool = g_thread_pool_new (screen_chunk, &run, threads, TRUE, error);
  if (pool == NULL)
    goto fail;
  for (guint64 i = run.first; i < run.last; i += run.chunk)
    g_thread_pool_push (pool, GSIZE_TO_POINTER (i + 1), NULL);
  g_thread_pool_free (pool, FALSE, TRUE);
  progress (&run, "screening", run.last - run.first, run.last - run.first, TRUE);

  g_array_sort (run.fits, fit_cmp);
  pool = g_thread_pool_new (simulate_worker, &run, threads, TRUE, error);
  if (pool == NULL)
    goto fail;
  for (int t = 0; t < threads; t++)
    g_thread_pool_push (pool, GINT_TO_POINTER (t + 1), NULL);
  g_thread_pool_free (pool, FALSE, TRUE);
  progress (&run, "simulating", run.fits->len, run.fits->len, TRUE);
  if (run.error != NULL)
    {
      g_propagate_error (error, run.error);
      goto fail;
    }
  search_result_rank (s, run.res);
  run.res->wall_s = (double) (g_get_monotonic_time () - t0) / 1e6;
  g_array_unref (run.fits);
  g_array_unref (run.best);
  g_array_unref (run.ready);
  g_mutex_clear (&run.lock);
  return run.res;

fail:
  g_array_unref (run.fits);
  g_array_unref (run.best);
  g_array_unref (run.ready);
  g_mutex_clear (&run.lock);
  search_result_free (run.res);
  return NULL;
}
