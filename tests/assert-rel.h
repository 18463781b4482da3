/* tests/assert-rel.h - a relative comparison for numbers derived by hand to a stated
 * precision, shared by the tests that check costs and fits. */
#pragma once

#include <glib.h>
#include <math.h>

/* |a - b| <= rel x |b|; on failure names the expression and both values */
#define assert_rel(a, b, rel)                                                          \
  G_STMT_START {                                                                       \
    double a_ = (a), b_ = (b);                                                         \
    if (!(fabs (a_ - b_) <= (rel) * fabs (b_)))                                        \
      g_error ("%s = %.12g, expected %.12g (rel %g)", #a, a_, b_, (double) (rel));     \
  } G_STMT_END
