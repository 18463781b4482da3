/* fuzz/fuzz-published-csv.c - a published-runs CSV (`tandem validate --csv FILE`,
 * res_csv_parse).
 *
 * Every row of an accepted CSV is mapped to (model, cluster, plan) as validate does
 * (res_published_case_new), the first row that maps is predicted, and the report is
 * written as `tandem validate --json` writes it (res_published_report_to_json), checked
 * by fuzz_check_json. One row per input is predicted, and only one whose micro-batches
 * per step times layers is at most 256 (the simulated tasks grow with that product): the
 * published rows are real runs (Llama 3 405B: 126 layers, 16 to 256 micro-batches) whose
 * predictions take 0.1 to 2 s under the sanitizers. */
#include "fuzz/fuzz.h"

#include "results/published.h"

#define MAX_ROWS 64
#define MAX_PREDICTED_WORK 256   /* micro-batches per step x layers */

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = fuzz_text (data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (ResCsv) csv = res_csv_parse (text, (gssize) size, "fuzz/published.csv", &error);
  if (csv == NULL)
    return 0;

  ResPublishedReport *report = g_new0 (ResPublishedReport, 1);
  report->source = g_strdup (csv->source);
  report->cases = g_ptr_array_new_with_free_func ((GDestroyNotify) res_published_case_free);
  gboolean predicted = FALSE;
  for (guint r = 0; r < res_csv_n_rows (csv) && r < MAX_ROWS; r++)
    {
      ResPublishedCase *c = res_published_case_new (csv, r);
      g_free (res_published_case_plan_string (c));
      if (c->ready && !predicted
          && (guint64) MAX (c->plan.grad_accum, 1) * c->model->n_layers <= MAX_PREDICTED_WORK)
        predicted = res_published_case_predict (c) || TRUE;
      g_ptr_array_add (report->cases, c);
    }
  res_published_summarize ((ResPublishedCase *const *) report->cases->pdata,
                           report->cases->len, &report->summary);
  report->mb_scaling = res_published_mb_scaling ((ResPublishedCase *const *)
                                                 report->cases->pdata, report->cases->len);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  res_published_report_to_json (report, b);
  fuzz_check_json (b, "published-csv: validate --json");
  res_published_report_free (report);
  return 0;
}
