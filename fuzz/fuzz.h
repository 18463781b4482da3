/* fuzz/fuzz.h - what the libFuzzer harnesses in fuzz/ share.
 *
 * One harness per parser of user input (fuzz-<parser>.c), each an in-process libFuzzer
 * target built with clang -fsanitize=fuzzer,address,undefined (meson -Dfuzz=true, see
 * fuzz/meson.build). A harness feeds the bytes to the parser the way the CLI does, then,
 * when the parser accepts them, drives what the CLI does next with the result far enough
 * to produce the JSON the program would print, and hands that JSON to fuzz_check_json.
 *
 * A finding is anything that stops the process: a sanitizer report, a GLib critical or
 * warning (made fatal by fuzz_init: a library never prints, so either one is a bug), an
 * abort, or fuzz_fail when produced JSON is not valid. A parser refusing its input with a
 * GError is the expected outcome, not a finding.
 *
 * To add a harness for a new parser (a TOML plan reader, a log importer):
 *  1. fuzz/fuzz-NAME.c defining LLVMFuzzerTestOneInput (copy fuzz-plan-json.c: call
 *     fuzz_init once, copy the bytes with fuzz_text, parse, free everything: LSan reports
 *     leaks as findings);
 *  2. its name in the `harnesses` list of fuzz/meson.build;
 *  3. a seed corpus fuzz/corpus/NAME/ of a few small real inputs (one file each);
 *  4. optionally fuzz/dict/NAME.dict (libFuzzer dictionary: the format's keywords).
 * .ci/run and scripts/fuzz.sh then build and run it with the others. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stddef.h>
#include <stdint.h>

#include "models/model.h"
#include "plan/plan.h"
#include "topology/cluster.h"

G_BEGIN_DECLS

/* Once per process: GLib criticals and warnings fatal, nothing logged otherwise. */
void fuzz_init (void);

/* A model or cluster preset the harness needs, loaded once in LLVMFuzzerInitialize;
 * fuzz_fail ("WHAT: preset NAME: ...") when it does not load. */
ModelSpec   *fuzz_preset_model   (const char *what, const char *name);
TopoCluster *fuzz_preset_cluster (const char *what, const char *name);

/* The input as a NUL-terminated string (the parsers take text); g_free it. */
char *fuzz_text (const uint8_t *data, size_t size);

/* Aborts with "fuzz: WHAT: MESSAGE" on stderr (libFuzzer saves the input as a crash). */
G_NORETURN void fuzz_fail (const char *what, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

/* The builder's root serialized the way tandem writes JSON (util_json_to_data), then
 * checked: valid UTF-8, valid RFC 8259 JSON (strict grammar, no NaN/Infinity, no
 * "1e+22.0"), and json-glib parses it back. Fails loudly otherwise. */
void fuzz_check_json (JsonBuilder *builder, const char *what);
/* The same checks on JSON text the code produced. */
void fuzz_check_json_text (const char *text, gssize length, const char *what);

/* A prediction of `plan` (already given its degrees) on `model` and `cluster`, as
 * `tandem predict --json` makes it: plan_resolve, sim_predict, sim_prediction_to_json,
 * checked by fuzz_check_json. A refusal (GError) is fine; returns whether it predicted.
 * Plans of more than 4,096 micro-batches x layers are resolved but not simulated: valid,
 * but slow enough under the sanitizers to be reported as hangs. */
gboolean fuzz_predict_json (const ModelSpec *model, const TopoCluster *cluster, Plan *plan,
                            const char *what);

G_END_DECLS
