/* results/accuracy.c - how well tandem predicted published runs like a given one (see
 * accuracy.h). */
#include "results/accuracy.h"

#include <math.h>

#include <string.h>


/* compiled in by results/meson.build from data/accuracy.json */
extern GResource *tandem_accuracy_get_resource (void);

#define ACC_PATH "/tandem/results/accuracy.json"

/* `sum` collects the absolute errors, mean_err_pct the signed ones until class_finish */
static void
class_add (ResAccClass *c, double err_pct, double *sum)
{
  *sum += fabs (err_pct);
  if (c->n == 0)
    c->mean_err_pct = 0;
  c->mean_err_pct += err_pct;
  c->n++;
  if (c->n == 1 || fabs (err_pct) > c->max_abs_err_pct)
    c->max_abs_err_pct = fabs (err_pct);
}

static void
class_init (ResAccClass *c)
{
  c->n = 0;
  c->mape_pct = NAN;
  c->max_abs_err_pct = NAN;
  c->mean_err_pct = NAN;
}

static void
class_finish (ResAccClass *c, double sum)
{
  if (c->n == 0)
    return;
  c->mape_pct = sum / c->n;
  c->mean_err_pct /= c->n;
}

static void
zero (ResAccuracy *out)
{
  memset (out, 0, sizeof *out);
  for (int f = 0; f < RES_PUB_FAMILY_N; f++)
    {
      class_init (&out->dense_dev[f]);
      class_init (&out->dense_held[f]);
    }
  class_init (&out->moe);
  for (int k = 0; k < RES_ACC_MAX_STACKS; k++)
    {
      class_init (&out->stacks[k].dense);
      class_init (&out->stacks[k].moe);
    }
}

/* The entry of stack `name` (NULL: none, or no room left to add it). */
static ResAccStack *
stack_entry (ResAccuracy *a, const char *name, gboolean add)
{
  if (name == NULL)
    return NULL;
  for (guint k = 0; k < a->n_stacks; k++)
    if (g_str_equal (a->stacks[k].name, name))
      return &a->stacks[k];
  if (!add || a->n_stacks >= RES_ACC_MAX_STACKS)
    return NULL;
  ResAccStack *s = &a->stacks[a->n_stacks++];
  g_strlcpy (s->name, name, sizeof s->name);
  return s;
}

static const ResAccStack *
stack_find (const ResAccuracy *a, const char *name)
{
  return stack_entry ((ResAccuracy *) a, name, FALSE);
}

/* The entry of device part `name` (NULL: none, or no room left to add it). */
static ResAccDevice *
device_entry (ResAccuracy *a, const char *name, gboolean add)
{
  if (name == NULL)
    return NULL;
  for (guint k = 0; k < a->n_devices; k++)
    if (g_str_equal (a->devices[k].name, name))
      return &a->devices[k];
  if (!add || a->n_devices >= RES_ACC_MAX_DEVICES)
    return NULL;
  ResAccDevice *d = &a->devices[a->n_devices++];
  g_strlcpy (d->name, name, sizeof d->name);
  return d;
}

guint
res_accuracy_device_runs (const ResAccuracy *a, const char *device_name)
{
  const ResAccDevice *d = device_entry ((ResAccuracy *) a, device_name, FALSE);
  return d != NULL ? d->n : 0;
}

void
res_accuracy_from_report (const ResPublishedReport *report, ResAccuracy *out)
{
  zero (out);
  double dev[RES_PUB_FAMILY_N] = { 0 }, held[RES_PUB_FAMILY_N] = { 0 }, moe = 0;
  double st_dense[RES_ACC_MAX_STACKS] = { 0 }, st_moe[RES_ACC_MAX_STACKS] = { 0 };
  for (guint i = 0; i < report->cases->len; i++)
    {
      const ResPublishedCase *c = report->cases->pdata[i];
      if (!c->predicted || !isfinite (c->err_pct))
        continue;
      ResAccDevice *dv = device_entry (out, c->cluster != NULL
                                              ? topo_device_part (&c->cluster->device) : NULL,
                                       TRUE);
      if (dv != NULL)
        dv->n++;
      ResAccStack *st = stack_entry (out, c->stack ? c->stack->name : NULL, TRUE);
      if (st != NULL)
        {
          guint k = (guint) (st - out->stacks);
          if (c->moe.present)
            class_add (&st->moe, c->err_pct, &st_moe[k]);
          else
            class_add (&st->dense, c->err_pct, &st_dense[k]);
        }
      if (c->moe.present)
        class_add (&out->moe, c->err_pct, &moe);
      else if (c->held_out)
        class_add (&out->dense_held[c->family], c->err_pct, &held[c->family]);
      else
        class_add (&out->dense_dev[c->family], c->err_pct, &dev[c->family]);
    }
  for (int f = 0; f < RES_PUB_FAMILY_N; f++)
    {
      class_finish (&out->dense_dev[f], dev[f]);
      class_finish (&out->dense_held[f], held[f]);
    }
  class_finish (&out->moe, moe);
  for (guint k = 0; k < out->n_stacks; k++)
    {
      class_finish (&out->stacks[k].dense, st_dense[k]);
      class_finish (&out->stacks[k].moe, st_moe[k]);
    }
  ResPublishedRanking rk;
  res_published_ranking (report, &rk);
  out->pairs = rk.n_pairs;
  out->ordered = rk.n_ordered;
  out->pairs_apart = rk.n_pairs_wide;
  out->ordered_apart = rk.n_ordered_wide;
  res_published_ranking_clear (&rk);
  out->has_devices = TRUE;
  out->loaded = TRUE;
}

static void
class_read (JsonObject *o, const char *key, ResAccClass *c)
{
  class_init (c);
  if (o == NULL || !json_object_has_member (o, key))
    return;
  JsonNode *n = json_object_get_member (o, key);
  if (!JSON_NODE_HOLDS_OBJECT (n))
    return;
  JsonObject *k = json_node_get_object (n);
  c->n = (guint) json_object_get_int_member_with_default (k, "n", 0);
  if (c->n > 0)
    {
      c->mape_pct = json_object_get_double_member_with_default (k, "mape_pct", NAN);
      c->max_abs_err_pct = json_object_get_double_member_with_default (k, "max_abs_err_pct",
                                                                       NAN);
      c->mean_err_pct = json_object_get_double_member_with_default (k, "mean_err_pct", NAN);
    }
}

static void accuracy_parse (ResAccuracy *out);

/* The compiled-in table never changes: parsed once, copied to each caller (predict and
 * search ask for it once per plan printed). */
void
res_accuracy_load (ResAccuracy *out)
{
  static ResAccuracy cached;
  static gsize done = 0;
  if (g_once_init_enter (&done))
    {
      accuracy_parse (&cached);
      g_once_init_leave (&done, 1);
    }
  *out = cached;
}

static void
accuracy_parse (ResAccuracy *out)
{
  zero (out);
  g_autoptr (GBytes) bytes = g_resource_lookup_data (tandem_accuracy_get_resource (), ACC_PATH,
                                                     G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  if (bytes == NULL)
    return;
  g_autoptr (JsonParser) parser = json_parser_new ();
  gsize len;
  const char *data = g_bytes_get_data (bytes, &len);
  if (!json_parser_load_from_data (parser, data, (gssize) len, NULL)
      || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return;
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  JsonObject *dense = json_object_has_member (root, "dense")
                      ? json_object_get_object_member (root, "dense") : NULL;
  for (int f = 0; f < RES_PUB_FAMILY_N; f++)
    {
      const char *name = res_pub_family_name ((ResPubFamily) f);
      JsonObject *fam = dense != NULL && json_object_has_member (dense, name)
                        ? json_object_get_object_member (dense, name) : NULL;
      class_read (fam, "dev", &out->dense_dev[f]);
      class_read (fam, "held_out", &out->dense_held[f]);
    }
  class_read (root, "moe", &out->moe);
  JsonObject *stacks = json_object_has_member (root, "stacks")
                       ? json_object_get_object_member (root, "stacks") : NULL;
  if (stacks != NULL)
    {
      g_autoptr (GList) names = json_object_get_members (stacks);
      for (GList *l = names; l != NULL; l = l->next)
        {
          ResAccStack *st = stack_entry (out, l->data, TRUE);
          JsonObject *so = json_object_get_object_member (stacks, l->data);
          if (st == NULL || so == NULL)
            continue;
          class_read (so, "dense", &st->dense);
          class_read (so, "moe", &st->moe);
        }
    }
  JsonObject *devices = json_object_has_member (root, "devices")
                        ? json_object_get_object_member (root, "devices") : NULL;
  if (devices != NULL)
    {
      g_autoptr (GList) names = json_object_get_members (devices);
      for (GList *l = names; l != NULL; l = l->next)
        {
          ResAccDevice *dv = device_entry (out, l->data, TRUE);
          if (dv != NULL)
            dv->n = (guint) json_object_get_int_member_with_default (devices, l->data, 0);
        }
      out->has_devices = TRUE;
    }
  JsonObject *rk = json_object_has_member (root, "ranking")
                   ? json_object_get_object_member (root, "ranking") : NULL;
  if (rk != NULL)
    {
      out->pairs = (guint) json_object_get_int_member_with_default (rk, "pairs", 0);
      out->ordered = (guint) json_object_get_int_member_with_default (rk, "ordered", 0);
      out->pairs_apart = (guint) json_object_get_int_member_with_default (rk,
                                                                          "pairs_apart_5pct", 0);
      out->ordered_apart = (guint) json_object_get_int_member_with_default (
        rk, "ordered_apart_5pct", 0);
    }
  out->loaded = TRUE;
}

/* member `key`: {["name",] n, mape_pct, max_abs_err_pct, mean_err_pct} or null (n 0),
 * three decimals (see class_text) */
static void
class_write_named (JsonBuilder *b, const char *key, const ResAccClass *c, const char *name)
{
  json_builder_set_member_name (b, key);
  if (c == NULL || c->n == 0)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  if (name != NULL)
    {
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, name);
    }
  json_builder_set_member_name (b, "n");
  json_builder_add_int_value (b, c->n);
  json_builder_set_member_name (b, "mape_pct");
  json_builder_add_double_value (b, round (c->mape_pct * 1000) / 1000);
  json_builder_set_member_name (b, "max_abs_err_pct");
  json_builder_add_double_value (b, round (c->max_abs_err_pct * 1000) / 1000);
  json_builder_set_member_name (b, "mean_err_pct");
  if (isfinite (c->mean_err_pct))
    json_builder_add_double_value (b, round (c->mean_err_pct * 1000) / 1000);
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);
}

static void
class_write (JsonBuilder *b, const char *key, const ResAccClass *c)
{
  class_write_named (b, key, c, NULL);
}

/* "{"n": 24, "mape_pct": 4.551, "max_abs_err_pct": 24.639, "mean_err_pct": -0.173}" or
 * null (written by hand: json-glib prints doubles to 17 digits). Three decimals, so that
 * the sentences' one-decimal figures agree with validate's summary, which rounds the
 * unrounded mean: with two, the H100 dev rows' 4.551 was kept as 4.55 and printed 4.5
 * (the nearest double to 4.55 lies below it) where validate printed 4.6 */
static void
class_text (GString *out, const ResAccClass *c)
{
  if (c->n == 0)
    g_string_append (out, "null");
  else
    g_string_append_printf (out, "{ \"n\": %u, \"mape_pct\": %.3f, \"max_abs_err_pct\": %.3f, "
                            "\"mean_err_pct\": %.3f }", c->n, c->mape_pct, c->max_abs_err_pct,
                            c->mean_err_pct);
}

char *
res_accuracy_to_json (const ResAccuracy *a)
{
  GString *o = g_string_new ("{\n");
  g_string_append (o, "  \"_comment\": \"How well tandem predicted the published runs of "
                   "data/published-runs.csv, by kind of run and device family (mean and "
                   "largest absolute step-time error and the signed mean, negative where "
                   "tandem predicted faster than measured, percent); read by tandem predict and "
                   "tandem search (results/accuracy.h). Regenerate with: tandem validate "
                   "data/published-runs.csv --no-db --accuracy-json > data/accuracy.json; "
                   "tests/results/test-published.c fails when it is stale.\",\n");
  g_string_append (o, "  \"dense\": {");
  gboolean first = TRUE;
  for (int f = 0; f < RES_PUB_FAMILY_N; f++)
    {
      if (a->dense_dev[f].n == 0 && a->dense_held[f].n == 0)
        continue;
      g_string_append_printf (o, "%s\n    \"%s\": { \"dev\": ", first ? "" : ",",
                              res_pub_family_name ((ResPubFamily) f));
      class_text (o, &a->dense_dev[f]);
      g_string_append (o, ",\n      \"held_out\": ");
      class_text (o, &a->dense_held[f]);
      g_string_append (o, " }");
      first = FALSE;
    }
  g_string_append (o, "\n  },\n  \"moe\": ");
  class_text (o, &a->moe);
  g_string_append (o, ",\n  \"stacks\": {");
  for (guint k = 0; k < a->n_stacks; k++)
    {
      g_string_append_printf (o, "%s\n    \"%s\": { \"dense\": ", k ? "," : "",
                              a->stacks[k].name);
      class_text (o, &a->stacks[k].dense);
      g_string_append (o, ",\n      \"moe\": ");
      class_text (o, &a->stacks[k].moe);
      g_string_append (o, " }");
    }
  g_string_append (o, "\n  },\n  \"devices\": {");
  for (guint k = 0; k < a->n_devices; k++)
    g_string_append_printf (o, "%s \"%s\": %u", k ? "," : "", a->devices[k].name,
                            a->devices[k].n);
  g_string_append (o, " }");
  g_string_append_printf (o, ",\n  \"ranking\": { \"pairs\": %u, \"ordered\": %u, "
                          "\"pairs_apart_5pct\": %u, \"ordered_apart_5pct\": %u }\n}",
                          a->pairs, a->ordered, a->pairs_apart, a->ordered_apart);
  return g_string_free (o, FALSE);
}

/* the largest dense MAPE of any family and set: what an unknown device is told */
static double
worst_dense (const ResAccuracy *a)
{
  double w = NAN;
  for (int f = 0; f < RES_PUB_FAMILY_N; f++)
    {
      if (a->dense_dev[f].n > 0 && !(a->dense_dev[f].mape_pct <= w))
        w = a->dense_dev[f].mape_pct;
      if (a->dense_held[f].n > 0 && !(a->dense_held[f].mape_pct <= w))
        w = a->dense_held[f].mape_pct;
    }
  return w;
}

/* The stack's own class where it ran enough runs of the kind; NULL else. */
static const ResAccClass *
stack_class (const ResAccuracy *a, const char *stack, gboolean moe)
{
  const ResAccStack *st = stack_find (a, stack);
  if (st == NULL)
    return NULL;
  const ResAccClass *c = moe ? &st->moe : &st->dense;
  return c->n >= RES_ACC_MIN_STACK_ROWS ? c : NULL;
}

static double
family_typical_pct (const ResAccuracy *a, const char *device_name, gboolean moe)
{
  if (moe)
    return a->moe.n > 0 ? a->moe.mape_pct : NAN;
  ResPubFamily f = res_pub_family_for_text (device_name);
  if (a->dense_held[f].n > 0)
    return a->dense_held[f].mape_pct;
  if (a->dense_dev[f].n > 0)
    return a->dense_dev[f].mape_pct;
  return worst_dense (a);
}

double
res_accuracy_typical_pct (const ResAccuracy *a, const char *device_name, const char *stack,
                          gboolean moe)
{
  double t = family_typical_pct (a, device_name, moe);
  const ResAccClass *sc = stack_class (a, stack, moe);
  if (sc != NULL && (!isfinite (t) || sc->mape_pct > t))
    t = sc->mape_pct;
  return t;
}

double
res_accuracy_bias_pct (const ResAccClass *c)
{
  if (c == NULL || c->n < RES_ACC_MIN_BIAS_ROWS || !isfinite (c->mean_err_pct)
      || fabs (c->mean_err_pct) < RES_ACC_MIN_BIAS_PCT
      || fabs (c->mean_err_pct) < 0.4 * c->mape_pct)
    return NAN;
  return c->mean_err_pct;
}

/* ", on average 11.2% too fast: expect a slower run" where `c` leans one way; "" else */
static const char *
bias_clause (const ResAccClass *c, char *buf, gsize len)
{
  double b = res_accuracy_bias_pct (c);
  if (!isfinite (b))
    return "";
  g_snprintf (buf, len, ", on average %.1f%% too %s: expect a %s run", fabs (b),
              b < 0 ? "fast" : "slow", b < 0 ? "slower" : "faster");
  return buf;
}

static char *
family_sentence (const ResAccuracy *a, const char *device_name, gboolean moe)
{
  char bias[96];
  ResPubFamily f = res_pub_family_for_text (device_name);
  if (moe)
    {
      if (a->moe.n == 0)
        return g_strdup ("no mixture-of-experts run published to compare with: unchecked");
      return g_strdup_printf ("weak: mixture-of-experts runs were predicted with %.1f%% mean "
                              "error (largest %.0f%%) on %u published runs "
                              "(data/published-runs.csv)%s", a->moe.mape_pct,
                              a->moe.max_abs_err_pct, a->moe.n,
                              bias_clause (&a->moe, bias, sizeof bias));
    }
  const ResAccClass *d = &a->dense_dev[f], *h = &a->dense_held[f];
  if (f == RES_PUB_FAMILY_OTHER || (d->n == 0 && h->n == 0))
    return g_strdup_printf ("no published run on this device family to compare with: "
                            "extrapolated (on the families with runs the mean error is up "
                            "to %.1f%%)", worst_dense (a));
  const char *fam = res_pub_family_name (f);
  if (d->n > 0 && h->n > 0)
    return g_strdup_printf ("dense runs on %s were predicted with %.1f%% mean error on %u "
                            "dev and %.1f%% on %u held-out published runs "
                            "(data/published-runs.csv)%s", fam, d->mape_pct, d->n, h->mape_pct,
                            h->n, bias_clause (h, bias, sizeof bias));
  const ResAccClass *one = d->n > 0 ? d : h;
  return g_strdup_printf ("dense runs on %s were predicted with %.1f%% mean error on %u %s "
                          "published runs (data/published-runs.csv)%s", fam, one->mape_pct,
                          one->n, d->n > 0 ? "dev" : "held-out",
                          bias_clause (one, bias, sizeof bias));
}

char *
res_accuracy_sentence (const ResAccuracy *a, const char *device_name, const char *stack,
                       gboolean moe)
{
  if (!a->loaded)
    return g_strdup ("no accuracy figures in this build");
  g_autofree char *fam = family_sentence (a, device_name, moe);
  /* a family's figure borrowed for a part none of its runs was on (a PCIe or NVL card,
   * an H800 or A800 server): said, since board power and links differ within a family */
  ResPubFamily f = res_pub_family_for_text (device_name);
  if (!moe && a->has_devices && device_name != NULL && f != RES_PUB_FAMILY_OTHER
      && (a->dense_dev[f].n > 0 || a->dense_held[f].n > 0)
      && res_accuracy_device_runs (a, device_name) == 0)
    {
      char *more = g_strdup_printf ("%s (none on %s itself: its family's figure)", fam,
                                    device_name);
      g_free (fam);
      fam = more;
    }
  const ResAccClass *sc = stack_class (a, stack, moe);
  if (sc == NULL)
    return g_steal_pointer (&fam);
  /* above 10% the stack's own runs say the prediction is weak (the dense classes sit
   * at 3-6%) */
  return g_strdup_printf ("%s; with the %s stack %.1f%% on %u%s", fam, stack, sc->mape_pct,
                          sc->n, sc->mape_pct > 10.0 && !moe ? ": weak" : "");
}

void
res_accuracy_class_json (const ResAccuracy *a, const char *device_name, const char *stack,
                         gboolean moe, JsonBuilder *b)
{
  ResPubFamily f = res_pub_family_for_text (device_name);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "family");
  json_builder_add_string_value (b, res_pub_family_name (f));
  json_builder_set_member_name (b, "kind");
  json_builder_add_string_value (b, moe ? "moe" : "dense");
  ResAccClass none;
  class_init (&none);
  class_write (b, "dev", moe ? &none : &a->dense_dev[f]);
  class_write (b, "held_out", moe ? &none : &a->dense_held[f]);
  class_write (b, "moe", moe ? &a->moe : &none);
  class_write_named (b, "stack", stack_class (a, stack, moe), stack);
  json_builder_set_member_name (b, "device_runs");
  if (a->has_devices)
    json_builder_add_int_value (b, res_accuracy_device_runs (a, device_name));
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "typical_error_pct");
  double t = res_accuracy_typical_pct (a, device_name, stack, moe);
  if (isfinite (t))
    json_builder_add_double_value (b, round (t * 1000) / 1000);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "note");
  g_autofree char *s = res_accuracy_sentence (a, device_name, stack, moe);
  json_builder_add_string_value (b, s);
  json_builder_end_object (b);
}
