/* tests/exec/devsim-backend.h - "device emulation": a test-only backend that is the CPU
 * backend in every respect except that its buffers' `data` are pointers the host cannot
 * dereference, as a CUDA device pointer would be. Code that reaches buffer memory only
 * through the ops table (upload, download, GEMM, collectives) and the kernel table runs
 * on it exactly as on the CPU, with the same numbers; code that reads or writes a
 * buffer on the host crashes at once (SIGSEGV).
 *
 * Design:
 *  - Handles (streams, events, groups) are the CPU backend's own: devsim opens the CPU
 *    backend and replaces its ops table with a copy whose memory, GEMM, collective and
 *    kernel entries translate pointers and call the CPU's. Every handle names its
 *    backend, so exec_kernels_for (stream) and exec_gemm (stream, ...) land here.
 *  - A device pointer is the real host pointer plus DEVSIM_OFFSET = 2^55. Why it always
 *    faults on Linux: user space lives below 2^47 (x86-64 with 4-level paging, arm64 with
 *    48-bit VAs), which devsim checks for every allocation. With x86-64 4-level paging
 *    an address in [2^55, 2^55 + 2^47) is non-canonical (bits 63..47 differ), so any
 *    access raises #GP, which Linux delivers as SIGSEGV. With 5-level paging (LA57) it
 *    is canonical but above 2^47, where Linux maps nothing unless mmap is given a hint
 *    above 47 bits (Documentation/arch/x86/x86_64/5level-paging.rst), so it is an
 *    unmapped page: SIGSEGV. On arm64 the top byte is ignored (TBI), but bit 55 selects
 *    the kernel's translation table (TTBR1), which user mode may not access: SIGSEGV.
 *    test-run-devsim.c checks the fault in a subprocess.
 *  - Translation is strict: a wrapped kernel, GEMM or collective given a pointer that is
 *    not a device pointer (host memory, such as a host array of positions) aborts with a
 *    message naming the function and the argument: on CUDA that pointer would have been
 *    read by the device. NULL stays NULL (optional arguments).
 *  - One devsim backend at a time per process (its buffers are tracked in a global
 *    table, to give the CPU backend its real pointers back before it frees them). */
#pragma once

#include "exec/backend.h"
#include "exec/layers.h"

G_BEGIN_DECLS

#define DEVSIM_OFFSET ((guintptr) 1 << 55)
/* What devsim reports as its device memory (ExecBackend.device_memory_bytes). */
#define DEVSIM_MEMORY_BYTES ((guint64) 16 << 30)

/* Opens the CPU backend (config as for it) dressed as "devsim". */
ExecBackend *devsim_backend_open (const ExecConfig *config, GError **error);
/* Is p a devsim device pointer? */
gboolean     devsim_is_device   (const void *p);

/* What went through the wrappers since the backend was opened. */
typedef struct {
  guint64 kernels, gemms, collectives, uploads, downloads, buffers;
} DevsimCounts;
void devsim_counts (DevsimCounts *out);

G_END_DECLS
