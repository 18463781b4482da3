/* results/published-moe-text.c - MoE fields a published row states outside its `moe`
 * cell: expert tensor parallelism in the ep cell or the notes (results/published-moe.h,
 * the readers' contract; every example below is in tests/results/test-published-moe.c).
 * The moe cell's own keys win over anything read here. */
#include "results/published-moe.h"

#include <string.h>

#include "plan/plan.h"

/* `p` (inside `low`) starts a word: nothing or no letter, digit or '_' before it, except
 * that a '_' or '-' joins a label to its prefix ("--moe-router-...", "moe_router_...") */
static gboolean
word_start (const char *low, const char *p)
{
  return p == low || !g_ascii_isalnum (p[-1]);
}

/* The whole number after a label at `q` (just past the label): any of " =:" between
 * ("ETP 1", "etp=1", "expert_tensor_parallel_size = 1"), or none ("ETP1"), then digits
 * not followed by a letter, a digit group or a decimal point; 0 when none. */
static gint64
count_after (const char *q)
{
  while (*q == ' ' || *q == '=' || *q == ':')
    q++;
  if (!g_ascii_isdigit (*q))
    return 0;
  char *end = NULL;
  gint64 n = g_ascii_strtoll (q, &end, 10);
  if (g_ascii_isalpha (*end) || (*end == '.' && g_ascii_isdigit (end[1]))
      || (*end == ',' && g_ascii_isdigit (end[1])))
    return 0;
  return n;
}

/* Expert tensor parallelism after one of its names (lower case, at a word start):
 *   "ETP 1", "ETP1" ("EP64, ETP1"), "etp=1";
 *   "expert TP 1" ("64 (expert TP 1)"), "expert_tp=1";
 *   "expert tensor parallel size 1", "expert tensor parallelism 2", "expert tensor parallel 2";
 *   "expert_tensor_parallel_size=1", "expert_tensor_parallel_size = 1" (Megatron-Bridge
 *   recipes), "--expert-tensor-parallel-size 1" (Megatron-LM's flag).
 * Not "ETP x EP" (no number). Two different sizes in one text are no reading (-1). */
gint64
res_pub_moe_etp_in_text (const char *text)
{
  static const char *const labels[] = { "expert_tensor_parallel_size",
                                        "expert-tensor-parallel-size",
                                        "expert tensor parallel size",
                                        "expert tensor parallelism", "expert tensor parallel",
                                        "expert tp", "expert_tp", "etp" };
  if (text == NULL)
    return 0;
  g_autofree char *low = g_ascii_strdown (text, -1);
  gint64 found = 0;
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    for (const char *p = strstr (low, labels[i]); p != NULL; p = strstr (p + 1, labels[i]))
      {
        const char *q = p + strlen (labels[i]);
        /* a longer label read this text already ("expert tensor parallel size 1" is not
         * read again as "expert tensor parallel" followed by "size") */
        if (!word_start (low, p) || g_ascii_isalpha (*q) || *q == '_' || *q == '-')
          continue;
        gint64 n = count_after (q);
        if (n < 1 || n > PLAN_MAX_WORLD)
          continue;
        if (found != 0 && found != n)
          return -1;
        found = n;
      }
  return found;
}

void
res_pub_moe_read_row (ResPubMoe *moe, const char *ep_cell, const char *notes)
{
  if (!moe->present)
    return;
  /* etp: the moe cell's, else the ep cell's, else the notes' */
  const gint64 in_ep = res_pub_moe_etp_in_text (ep_cell);
  const gint64 in_notes = res_pub_moe_etp_in_text (notes);
  const gint64 text_etp = in_ep != 0 ? in_ep : in_notes;
  const char *text_from = in_ep != 0 ? "the ep cell" : "the notes";
  if (moe->etp == 0 && text_etp > 0)
    {
      moe->etp = (guint64) text_etp;
      moe->etp_from = text_from;
    }
  else if (moe->etp > 0 && text_etp > 0 && (guint64) text_etp != moe->etp)
    {
      moe->etp_other = (guint64) text_etp;
      moe->etp_other_from = text_from;
    }
}

/* The expert TP the moe cell could state for a plan whose default (etp = tp) does not
 * fold: the largest e below tp with e x ep dividing the stage's tp x cp x dp ranks and e
 * dividing the expert FFN (plan-validate.c's two conditions); 0 when none. */
int
res_pub_moe_etp_that_folds (const ResPubMoe *moe, const Plan *plan)
{
  const gint64 stage = (gint64) plan->tp * plan->cp * plan->dp;
  const gint64 ep = MAX (plan->ep, 1);
  for (int e = plan->tp - 1; e >= 1; e--)
    if (stage % ((gint64) e * ep) == 0 && moe->moe_ffn % (guint64) e == 0)
      return e;
  return 0;
}
