/* results/training-log.h - step times read from a training log, so that a run someone
 * made with Megatron-LM or TorchTitan can be stored as a measured run next to tandem's
 * prediction of the same plan (`tandem import-log`).
 *
 * Contract:
 *  - Megatron-LM (megatron/training/training.py, training_log): lines with
 *    "iteration N/ M |" and "elapsed time per iteration (ms): T"; also read when present:
 *    "throughput per GPU (TFLOP/s/GPU): X" and "global batch size: B". Each such line is
 *    one logged interval; its step time is T / 1000 s (Megatron prints the mean over the
 *    log interval).
 *  - TorchTitan (torchtitan/components/metrics.py): lines "step: N ... tps: X ... tflops:
 *    Y ... mfu: Z%" (ANSI colours and thousands separators tolerated). tps is tokens per
 *    second per GPU, so the step time is tokens per step / (tps x GPUs): the caller gives
 *    the plan's tokens per step and GPUs (training_log_step_times).
 *  - Anything else in the file is ignored (logs hold much besides); a file without one
 *    such line is an error. Pure: no I/O but the read of the file, never prints. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A logged step that is a measurement lasts from a microsecond to a day (the day is
 * validate's bound on a published step time) */
#define TRAINING_LOG_MIN_STEP_S 1e-6
#define TRAINING_LOG_MAX_STEP_S 86400.0

#define TRAINING_LOG_ERROR (training_log_error_quark ())
GQuark training_log_error_quark (void);
typedef enum {
  TRAINING_LOG_ERROR_READ,      /* the file cannot be read */
  TRAINING_LOG_ERROR_PARSE,     /* no step line, or a malformed number on one */
} TrainingLogError;

typedef enum {
  TRAINING_LOG_AUTO,
  TRAINING_LOG_MEGATRON,
  TRAINING_LOG_TORCHTITAN,
} TrainingLogFormat;

const char *training_log_format_name (TrainingLogFormat f);   /* "megatron", ... */
gboolean    training_log_format_parse (const char *name, TrainingLogFormat *out);

typedef struct {
  gint64 step;              /* iteration / step number as logged */
  double elapsed_s;         /* Megatron: per iteration; NaN for TorchTitan */
  double tps;               /* TorchTitan: tokens/s per GPU; NaN for Megatron */
  double tflops_per_gpu;    /* as logged; NaN when absent */
  double mfu_pct;           /* TorchTitan's mfu; NaN when absent */
  gint64 global_batch;      /* Megatron's "global batch size"; 0 when absent */
  int    line;              /* 1-based line in the file */
} TrainingLogEntry;

typedef struct {
  TrainingLogFormat format; /* as detected or given */
  GArray           *entries;/* TrainingLogEntry, in file order */
  char             *source;
} TrainingLog;

TrainingLog *training_log_parse (const char *text, gssize len, TrainingLogFormat format,
                                 const char *source, GError **error);
TrainingLog *training_log_load  (const char *path, TrainingLogFormat format, GError **error);
void         training_log_free  (TrainingLog *log);                    /* NULL-safe */

/* Step times in seconds, one per entry from entry `skip` on (the first logged intervals
 * hold compilation and warm-up): Megatron's elapsed time, or for TorchTitan
 * tokens_per_step / (tps x gpus). Returns the count written to *out (g_free it); 0 with
 * error set when none is left. */
guint training_log_step_times (const TrainingLog *log, guint skip, double tokens_per_step,
                               int gpus, double **out, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TrainingLog, training_log_free)

G_END_DECLS
