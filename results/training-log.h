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
 *  - Lines end at LF, CR LF or a lone CR. A run of NUL bytes (logrotate copytruncate, a
 *    node that crashed before its pages were written) is a line break and is counted
 *    (nul_bytes); the text after it is read. A step line that is not ended by a line break
 *    (the end of the file, or a NUL run) and lacks a field the format writes after the
 *    time, or the time itself ("iteration 50/ 1000 | ... | elaps", TorchTitan's
 *    "step: 40  loss: 7.2"), or whose last number is cut short ("(ms): 14" without
 *    Megatron's " |"), is left out and counted (incomplete).
 *  - A Megatron number run on into other text ("(ms): 6700x |") is no figure Megatron
 *    printed: its step line is left out and counted (run_on). A global batch past 2^53
 *    is no batch a job ran: an error naming the line.
 *  - Numbers may group thousands with ',' (TorchTitan's "tps: 6,543"); a ',' must be
 *    followed by exactly three digits ("5,0" is an error, not 5.0 or 50).
 *  - One entry per step number, in file order: a line that repeats a logged step with the
 *    same figures (several ranks printing it) is dropped (duplicates); one that repeats the
 *    latest step with other figures (each rank timing itself) is merged into it, the
 *    slowest kept (a synchronous step lasts as long as its slowest rank) (merged); a step
 *    number below one already logged (a restarted job appending to the same file) is an
 *    error naming the line.
 *  - Megatron's "using world size: N, ... tensor-model-parallel size: T, ...
 *    pipeline-model-parallel size: P" header is read into header_* (first one).
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
  TRAINING_LOG_ERROR_PARSE,     /* no step line, a malformed number on one, or step
                                 * numbers that go back (a restart) */
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
  GArray           *entries;/* TrainingLogEntry, one per step number, in file order */
  char             *source;
  /* what the reader left out or merged (the caller says so) */
  guint64           nul_bytes;      /* NUL bytes skipped */
  guint             duplicates;     /* step lines repeating a step with the same figures */
  guint             merged;         /* step lines repeating the latest step, other figures */
  guint             incomplete;     /* unterminated step lines cut short, left out */
  int               incomplete_line;/* the first of them */
  guint             no_tps;         /* TorchTitan step lines (step: and loss:) without tps:,
                                     * left out */
  int               no_tps_line;    /* the first of them */
  guint             run_on;         /* Megatron step lines with a number run on into other
                                     * text ("(ms): 6700x |"), left out */
  int               run_on_line;    /* the first of them */
  const char       *run_on_field;   /* its key ("elapsed time per iteration (ms):"),
                                     * static */
  /* Megatron's header: world, tensor-, pipeline- and context-parallel sizes; 0 where the
   * log does not say (header_line 0: no header) */
  int               header_line;
  int               header_world, header_tp, header_pp, header_cp;
} TrainingLog;

TrainingLog *training_log_parse (const char *text, gssize len, TrainingLogFormat format,
                                 const char *source, GError **error);
TrainingLog *training_log_load  (const char *path, TrainingLogFormat format, GError **error);
void         training_log_free  (TrainingLog *log);                    /* NULL-safe */

/* Step times in seconds, one per logged step from step `skip` on (the first logged intervals
 * hold compilation and warm-up): Megatron's elapsed time, or for TorchTitan
 * tokens_per_step / (tps x gpus). Returns the count written to *out (g_free it); 0 with
 * error set when none is left. */
guint training_log_step_times (const TrainingLog *log, guint skip, double tokens_per_step,
                               int gpus, double **out, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TrainingLog, training_log_free)

G_END_DECLS
