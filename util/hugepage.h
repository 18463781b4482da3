/* util/hugepage.h - ask the kernel to back a large array with huge pages.
 *
 * A long step program and its simulation fill arrays of tens of megabytes that are written
 * once from start to end (the 1F1B Llama-3 405B step at 256 micro-batches: 469,262 tasks,
 * about 60 MB). Each 4 KiB page costs a page fault on its first write, about 15,000 per
 * prediction, which took a quarter of that prediction's time; transparent huge pages
 * (2 MiB) take 512 times fewer. Linux only, and only where THP is enabled in "madvise"
 * or "always" mode; elsewhere (or for small arrays) nothing happens. The values in the
 * array are not touched: an exact speedup. */
#pragma once

#include <glib.h>

#ifdef __linux__
#include <sys/mman.h>
#endif

/* Advises huge pages for the 2 MiB-aligned part of [p, p + len), when that is at least
 * two huge pages (smaller arrays are left to the allocator as they are). */
static inline void
util_advise_hugepages (void *p, gsize len)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const guintptr huge = (guintptr) 2 << 20;
  guintptr a = ((guintptr) p + huge - 1) & ~(huge - 1);
  guintptr b = ((guintptr) p + len) & ~(huge - 1);
  if (p != NULL && b > a && b - a >= 2 * huge)
    (void) madvise ((void *) a, b - a, MADV_HUGEPAGE);
#else
  (void) p;
  (void) len;
#endif
}
