/* fuzz/fuzz-training-log.c - a Megatron-LM or TorchTitan training log (`tandem import-log
 * FILE`, training_log_parse).
 *
 * An accepted log gives step times for a plan of 8 GPUs and 65,536 tokens per step, as
 * import-log derives them; every one must be finite and positive (or the log refused), and the entries'
 * numbers finite or NaN where absent (never negative), one entry per step number in rising
 * order, or the harness fails. */
#include "fuzz/fuzz.h"
#include "results/training-log.h"

#include <math.h>

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
  g_autoptr (TrainingLog) log = training_log_parse (text, (gssize) size, TRAINING_LOG_AUTO,
                                                    "fuzz/train.log", &error);
  if (log == NULL)
    return 0;
  for (guint i = 0; i < log->entries->len; i++)
    {
      const TrainingLogEntry *e = &g_array_index (log->entries, TrainingLogEntry, i);
      if (e->elapsed_s < 0 || e->tps < 0 || e->tflops_per_gpu < 0 || e->mfu_pct < 0)
        fuzz_fail ("training-log", "negative number on line %d", e->line);
      /* one entry per step number, in rising order (repeats merged, a restart refused) */
      if (i > 0 && e->step <= g_array_index (log->entries, TrainingLogEntry, i - 1).step)
        fuzz_fail ("training-log", "step %" G_GINT64_FORMAT " on line %d does not rise",
                   e->step, e->line);
    }
  g_autofree double *times = NULL;
  guint n = training_log_step_times (log, 0, 65536.0, 8, &times, &error);
  for (guint i = 0; i < n; i++)
    if (!(isfinite (times[i]) && times[i] > 0))
      fuzz_fail ("training-log", "step time %g of entry %u", times[i], i);
  return 0;
}
