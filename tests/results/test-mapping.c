/* tests/results/test-mapping.c - the published-run mapping as a table: each text rule of
 * results/published.c (gpu_type, framework, zero_stage_or_fsdp, precision) with the
 * examples its comment lists, read through res_published_case_new on one-row CSVs. */
#include <math.h>
#include <string.h>

#include <glib.h>

#include "results/published.h"

/* The mapping of the first row of an inline CSV (header line, then rows). */
static ResPublishedCase *
case_of (const char *text)
{
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
  g_assert_nonnull (csv);
  return res_published_case_new (csv, 0);
}

/* A cell's text for a quoted CSV field: each '"' doubled (cells that quote a config:
 * '"offload_optimizer": {"device": "none"}') */
static char *
csv_cell (const char *text)
{
  g_auto (GStrv) parts = g_strsplit (text, "\"", -1);
  return g_strjoinv ("\"\"", parts);
}

/* One row of a small GPT (16 layers of 1024, 16 heads) on `gpus` GPUs with the given
 * cells; tp 1 pp `pp`, dp derived. */
static ResPublishedCase *
row (const char *gpu_type, int gpus, int pp, const char *sharding, const char *framework,
     const char *precision)
{
  g_autofree char *sh = csv_cell (sharding);
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "zero_stage_or_fsdp,framework,precision,global_batch,step_time_s\n"
    "1,GPT,\"%s\",%d,16,1024,16,16384,1024,1,%d,\"%s\",\"%s\",\"%s\",%d,1.0\n",
    gpu_type, gpus, pp, sh, framework, precision, gpus * 4);
  return case_of (text);
}

static void
test_gpu_types (void)
{
  static const struct { const char *gpu; int n; const char *preset; ResPubFamily fam; } rows[] = {
    { "NVIDIA Ampere (A100)", 8, "selene", RES_PUB_FAMILY_A100 },
    { "A100-SXM-80GB (Selene)", 8, "selene", RES_PUB_FAMILY_A100 },
    { "a100 40gb", 8, "a100-40g-cluster", RES_PUB_FAMILY_A100 },
    { "A100-SXM-40GB", 8, "a100-40g-cluster", RES_PUB_FAMILY_A100 },
    { "H100-SXM-80GB", 8, "dgx-h100-superpod", RES_PUB_FAMILY_H100 },
    { "H100-SXM-80GB", 2048, "dgx-h100-superpod-64su", RES_PUB_FAMILY_H100 },
    { "H100-SXM-80GB (700W, HBM3)", 8, "h100-24k", RES_PUB_FAMILY_H100 },
    { "H100-SXM-96GB-HBM2e", 8, "h100-sxm-96g-superpod", RES_PUB_FAMILY_H100 },
    { "H100 94 GB", 8, "h100-sxm-96g-superpod", RES_PUB_FAMILY_H100 },
    { "NVIDIA H100 NVL", 8, "h100-nvl-cluster", RES_PUB_FAMILY_H100 },
    { "H100 PCIe 80GB", 8, "h100-pcie-cluster", RES_PUB_FAMILY_H100 },
    /* the A100 PCIe card: its own presets (PCIe Gen4 servers, its HBM), by size; the A800
     * PCIe card differs from it only in its NVLink bridges, which are not modelled */
    { "A100 PCIe 80GB", 8, "a100-pcie-cluster", RES_PUB_FAMILY_A100 },
    { "NVIDIA A100-PCIE-40GB", 8, "a100-pcie-40g-cluster", RES_PUB_FAMILY_A100 },
    { "A800 PCIe 80GB", 8, "a100-pcie-cluster", RES_PUB_FAMILY_A100 },
    /* the export variants (NVLink 400 GB/s): H800 SXM on its own presets (1,024 GPUs, or
     * 64 SUs above), in the H100 family, the same die; its PCIe card on the H100 PCIe
     * preset as before; A800 SXM (80 GB only) on a800-superpod, in the A100 family */
    { "H800-SXM-80GB", 8, "dgx-h800-superpod", RES_PUB_FAMILY_H100 },
    { "H800-SXM-80GB", 2048, "dgx-h800-superpod-64su", RES_PUB_FAMILY_H100 },
    { "NVIDIA H800 80GB HBM3", 1024, "dgx-h800-superpod", RES_PUB_FAMILY_H100 },
    { "H800 PCIe 80GB", 8, "h100-pcie-cluster", RES_PUB_FAMILY_H100 },
    { "A800-SXM4-80GB", 8, "a800-superpod", RES_PUB_FAMILY_A100 },
    { "NVIDIA A800 80GB", 64, "a800-superpod", RES_PUB_FAMILY_A100 },
    { "H200 SXM 141GB", 8, "h200-superpod", RES_PUB_FAMILY_H200 },
    { "B200-SXM-180GB", 8, "dgx-b200-superpod", RES_PUB_FAMILY_B200 },
    { "DGX B200", 8, "dgx-b200-superpod", RES_PUB_FAMILY_B200 },
    { "GB200 NVL72", 72, "gb200-nvl72-superpod", RES_PUB_FAMILY_B200 },
    { "nvidia gb300 nvl72", 72, "gb300-nvl72-superpod", RES_PUB_FAMILY_B200 },
    { "AMD Instinct MI300X", 64, "mi300x-cluster", RES_PUB_FAMILY_OTHER },
    { "MI325X 256GB", 8, "mi325x-cluster", RES_PUB_FAMILY_OTHER },
    /* larger than the preset's 1,024: its outermost level is repeated */
    { "MI300X", 4096, "mi300x-cluster", RES_PUB_FAMILY_OTHER },
    /* B300 is not GB300; H20 is not H200 (which contains it) */
    { "B300", 8, "dgx-b300-superpod", RES_PUB_FAMILY_B200 },
    { "NVIDIA DGX B300", 64, "dgx-b300-superpod", RES_PUB_FAMILY_B200 },
    { "H20", 8, "hgx-h20-cluster", RES_PUB_FAMILY_OTHER },
    { "NVIDIA H20 96GB", 16, "hgx-h20-cluster", RES_PUB_FAMILY_OTHER },
    /* "NVL" is the H100 NVL product only as a word of its own: NVLink and NVSwitch in a
     * description of an SXM server are the interconnect, not the PCIe-card part */
    { "H100 SXM5 80GB (NVLink)", 8, "dgx-h100-superpod", RES_PUB_FAMILY_H100 },
    { "8x H100 80GB with NVLink 4 / NVSwitch", 8, "dgx-h100-superpod", RES_PUB_FAMILY_H100 },
    { "H100-NVL", 8, "h100-nvl-cluster", RES_PUB_FAMILY_H100 },
    { "H100NVL 94GB", 8, "h100-nvl-cluster", RES_PUB_FAMILY_H100 },
    /* a size is a number of its own: DGX A100 640GB is 8 x 80 GB (NVIDIA DGX A100 data
     * sheet), not a 40 GB part, and "196GB" is not 96 GB */
    { "DGX A100 640GB", 8, "selene", RES_PUB_FAMILY_A100 },
    { "A100 (40GB)", 8, "a100-40g-cluster", RES_PUB_FAMILY_A100 },
    { "H100 80GB, 196GB host", 8, "dgx-h100-superpod", RES_PUB_FAMILY_H100 },
    /* Frontier's GCDs are the devices: 8 per node of 4 MI250X */
    { "AMD MI250X", 8, "frontier", RES_PUB_FAMILY_OTHER },
    { "mi250x (Frontier, GCDs)", 256, "frontier", RES_PUB_FAMILY_OTHER },
    { "AMD Instinct MI355X", 16, "mi355x-cluster", RES_PUB_FAMILY_OTHER },
    /* the MI350X, the MI355X's air-cooled part at 2.2 GHz (it had no preset), and AMD's
     * parts without their X as AMD's own validation configs write them (each refused) */
    { "AMD Instinct MI350X", 16, "mi350x-cluster", RES_PUB_FAMILY_OTHER },
    { "mi350", 8, "mi350x-cluster", RES_PUB_FAMILY_OTHER },
    { "mi355", 8, "mi355x-cluster", RES_PUB_FAMILY_OTHER },
    { "mi325", 8, "mi325x-cluster", RES_PUB_FAMILY_OTHER },
    { "MI300 (OAM)", 8, "mi300x-cluster", RES_PUB_FAMILY_OTHER },
    /* a count or a plural glued to the name (the X-less reading refused them) */
    { "8xMI300X", 8, "mi300x-cluster", RES_PUB_FAMILY_OTHER },
    { "MI355Xx8", 8, "mi355x-cluster", RES_PUB_FAMILY_OTHER },
    { "MI300Xs", 8, "mi300x-cluster", RES_PUB_FAMILY_OTHER },
    /* Ada, PCIe only */
    { "L40S", 8, "l40s-pcie-cluster", RES_PUB_FAMILY_OTHER },
    { "NVIDIA L40S 48GB", 64, "l40s-pcie-cluster", RES_PUB_FAMILY_OTHER },
    /* TPU v5p within one slice (6,144 chips at most); Trainium2 within one Trn2 instance
     * (16 chips), or one UltraServer (64) where the text says so */
    { "TPU v5p", 256, "tpu-v5p-pod", RES_PUB_FAMILY_OTHER },
    { "Google Cloud TPU v5p", 6144, "tpu-v5p-pod", RES_PUB_FAMILY_OTHER },
    { "Trainium2", 16, "trn2-ultraserver", RES_PUB_FAMILY_OTHER },
    { "AWS Trn2", 8, "trn2-ultraserver", RES_PUB_FAMILY_OTHER },
    { "Trainium2 (Trn2 UltraServer)", 64, "trn2-ultraserver", RES_PUB_FAMILY_OTHER },
    /* the size written as NVIDIA's and the clouds' short form ("A100-SXM4-40G", "40G") or
     * in GiB is the 40 GB part (these read as the 80 GB selene); "94G" / "96G" is the
     * 96 GB H100; a count of GPUs ("40 GPUs") is no size */
    { "A100-SXM4-40G", 8, "a100-40g-cluster", RES_PUB_FAMILY_A100 },
    { "A100 40G", 8, "a100-40g-cluster", RES_PUB_FAMILY_A100 },
    { "A100 40 GiB", 8, "a100-40g-cluster", RES_PUB_FAMILY_A100 },
    { "A100-80G", 8, "selene", RES_PUB_FAMILY_A100 },
    { "A100 (40 GPUs)", 8, "selene", RES_PUB_FAMILY_A100 },
    { "H100 96G", 8, "h100-sxm-96g-superpod", RES_PUB_FAMILY_H100 },
    { "H100-SXM5-94G", 8, "h100-sxm-96g-superpod", RES_PUB_FAMILY_H100 },
    /* a GB200 NVL36 run inside one 36-GPU NVLink domain is inside one NVL72 domain too */
    { "GB200 NVL36", 36, "gb200-nvl72-superpod", RES_PUB_FAMILY_B200 },
    /* the GH200 superchip (96 GB HBM3) in nodes of four: not an H200 (it was read as
     * h200-superpod's 8-GPU NVSwitch servers, then skipped); "480GB" is its Grace memory */
    { "GH200 (Grace Hopper)", 8, "gh200-nvl4-cluster", RES_PUB_FAMILY_OTHER },
    { "NVIDIA GH200 Grace Hopper Superchip", 256, "gh200-nvl4-cluster", RES_PUB_FAMILY_OTHER },
    { "NVIDIA GH200 480GB", 4096, "gh200-nvl4-cluster", RES_PUB_FAMILY_OTHER },
    { "GH200 NVL4", 16, "gh200-nvl4-cluster", RES_PUB_FAMILY_OTHER },
    /* Leonardo's custom 64 GB A100 in nodes of four (it was read as selene's 80 GB in
     * 8-GPU NVSwitch servers, then skipped), or an A100 that names the machine */
    { "A100 SXM 64GB (Leonardo)", 64, "leonardo", RES_PUB_FAMILY_A100 },
    { "NVIDIA A100-SXM-64GB", 1024, "leonardo", RES_PUB_FAMILY_A100 },
    { "A100 (Leonardo Booster)", 256, "leonardo", RES_PUB_FAMILY_A100 },
    /* JSC's JUWELS Booster: nodes of four A100 40 GB (it was read as a100-40g-cluster's
     * 8-GPU NVSwitch servers) */
    { "A100-40GB (JUWELS Booster)", 512, "juwels-booster", RES_PUB_FAMILY_A100 },
    /* IDRIS's Jean Zay, BLOOM's machine: 4 Omni-Path links per node of 8 (it was read as
     * selene, 8 x HDR200 per node) */
    { "A100-SXM-80GB (Jean Zay)", 384, "jean-zay", RES_PUB_FAMILY_A100 },
    /* a variant the cell says the part is not, and a PCIe host link beside an explicit
     * SXM: each was read as the variant it names */
    { "H100 SXM5 (not PCIe)", 8, "dgx-h100-superpod", RES_PUB_FAMILY_H100 },
    { "H100 SXM (non-PCIe)", 8, "dgx-h100-superpod", RES_PUB_FAMILY_H100 },
    { "H100 SXM, 8 per node, PCIe Gen5 host link", 8, "dgx-h100-superpod", RES_PUB_FAMILY_H100 },
    { "H100 80GB (not H100 NVL)", 8, "dgx-h100-superpod", RES_PUB_FAMILY_H100 },
    { "H200 (not GH200)", 8, "h200-superpod", RES_PUB_FAMILY_H200 },
    { "A100 SXM4 80GB (not the 40GB variant)", 8, "selene", RES_PUB_FAMILY_A100 },
    /* a PCIe card with its host link is still the card */
    { "H100 PCIe Gen5, host link", 8, "h100-pcie-cluster", RES_PUB_FAMILY_H100 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = row (rows[i].gpu, rows[i].n, 1, "", "", "bf16");
      if (g_strcmp0 (c->cluster_name, rows[i].preset) != 0)
        g_error ("'%s': %s, expected %s (%s)", rows[i].gpu, c->cluster_name, rows[i].preset,
                 c->skip_reason ? c->skip_reason : "");
      g_assert_cmpint (c->family, ==, rows[i].fam);
      g_assert_true (c->ready);
    }
  /* the machine named only in the network column: a plain "A100 40GB" on JUWELS Booster,
   * a plain "A100" on Leonardo */
  static const struct { const char *gpu, *network, *preset; } by_network[] = {
    { "A100 40GB", "JUWELS Booster, 4x HDR200 per node", "juwels-booster" },
    { "NVIDIA A100", "InfiniBand HDR, Dragonfly+ (Leonardo)", "leonardo" },
    { "A100 40GB", "InfiniBand HDR200", "a100-40g-cluster" },
    { "A100-SXM-80GB", "Omni-Path (OPA), 4 links per node, dedicated NCCL subnet", "jean-zay" },
    { "A100 80GB", "InfiniBand HDR", "selene" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (by_network); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,network,"
        "global_batch,step_time_s\n"
        "1,GPT,\"%s\",16,16,1024,16,16384,1024,1,1,\"%s\",64,1.0\n",
        by_network[i].gpu, by_network[i].network);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (g_strcmp0 (c->cluster_name, by_network[i].preset) != 0)
        g_error ("'%s' on '%s': %s, expected %s", by_network[i].gpu, by_network[i].network,
                 c->cluster_name, by_network[i].preset);
    }
  g_autoptr (ResPublishedCase) tpu = row ("TPU v4", 8, 1, "", "", "bf16");
  g_assert_false (tpu->ready);
  g_assert_cmpstr (tpu->skip_reason, ==, "no cluster preset for gpu_type TPU v4");
  /* skipped, the reason naming the device: the GH200 parts gh200-nvl4-cluster does not
   * describe (the HBM3e superchip; NVLink Switch systems, whose NVLink domain spans nodes);
   * Gaudi 3 has no
   * preset; TPU v5p beyond one slice (6,144 chips) and Trainium2 beyond one instance (16)
   * without "UltraServer" would need the data-center / EFA network, which the presets do
   * not model */
  static const struct { const char *gpu; int n; const char *why; } skips[] = {
    { "GH200 144GB HBM3e", 8, "HBM3e part" },
    { "NVIDIA GH200 141GB", 8, "HBM3e part" },
    { "DGX GH200", 256, "NVLink Switch system" },
    { "GH200 NVL32", 32, "NVLink Switch system" },
    { "Gaudi 3", 8, "no cluster preset for gpu_type Gaudi 3" },
    { "TPU v5p", 8192, "multislice" },
    { "Trainium2", 64, "EFA" },
    { "Trn2 UltraServer", 128, "EFA" },
    { "TPU v5e", 256, "no cluster preset for gpu_type TPU v5e" },
    /* AMD parts whose stem another part's name holds: the MI300A APU and the MI308X are
     * not the MI300X, the MI250 not the MI250X */
    { "AMD MI300A", 8, "no cluster preset for gpu_type AMD MI300A" },
    { "MI308X", 8, "no cluster preset for gpu_type MI308X" },
    /* PCIe cards the SXM presets do not describe (were read as h200-superpod / selene) */
    { "H200 NVL", 8, "PCIe card" },
    { "NVIDIA H200 NVL 141GB", 4, "PCIe card" },
    /* parts the presets do not hold (each was read as a preset's): the 16 GB V100 (DGX-1,
     * Summit; dgx-2h-v100-cluster is DGX-2H's 32 GB SXM3), the V100 PCIe card, and a GB200
     * rack product whose NVLink domain
     * (NVL36: 36 GPUs, NVL4: 4) is smaller than the presets' 72 for a run larger than one:
     * 72 GPUs on NVL36 racks are two domains, which gb200-nvl72-superpod makes one */
    { "V100 16GB (Summit)", 36, "Summit's nodes hold six" },
    { "NVIDIA V100 PCIe 32GB", 8, "no NVSwitch" },
    { "GB200 NVL36", 72, "smaller than the NVL72" },
    { "GB200 NVL4", 8, "smaller than the NVL72" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (skips); i++)
    {
      g_autoptr (ResPublishedCase) c = row (skips[i].gpu, skips[i].n, 1, "", "", "bf16");
      if (c->ready || strstr (c->skip_reason, skips[i].why) == NULL)
        g_error ("'%s' x %d: ready %d, %s", skips[i].gpu, skips[i].n, c->ready,
                 c->skip_reason ? c->skip_reason : "");
    }
  g_autoptr (ResPublishedCase) gh = row ("GH200", 8, 1, "", "", "bf16");
  g_assert_cmpint (gh->family, ==, RES_PUB_FAMILY_OTHER);
  /* V100 (Volta: FP16 tensor cores, no BF16) -> dgx-2h-v100-cluster, family other; its
   * 16-bit rows run in fp16, a row naming bf16 (and not fp16) is skipped, and FP8 says
   * which precision the device has */
  static const struct { const char *gpu, *precision; } v100_ok[] = {
    { "V100 32GB", "fp16" },
    { "Tesla V100-SXM2-32GB", "fp16 mixed" },
    { "V100", "" },
    { "V100-32GB (25 DGX-2)", "fp16/bf16 mixed (half precision)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (v100_ok); i++)
    {
      g_autoptr (ResPublishedCase) c = row (v100_ok[i].gpu, 32, 1, "", "", v100_ok[i].precision);
      if (!c->ready)
        g_error ("'%s' / '%s': %s", v100_ok[i].gpu, v100_ok[i].precision, c->skip_reason);
      g_assert_cmpstr (c->cluster_name, ==, "dgx-2h-v100-cluster");
      g_assert_cmpint (c->family, ==, RES_PUB_FAMILY_OTHER);
      g_assert_cmpint (c->plan.compute_dtype, ==, PLAN_PREC_FP16);
      g_assert_cmpint (c->plan.param_dtype, ==, PLAN_PREC_FP16);
    }
  /* the 16 GB SXM2 part in 8-GPU servers: DGX-1's (dgx1-v100-cluster; DLPerf's
   * Megatron-LM rows on 4 x 8 of them were skipped), fp16 as every Volta row */
  static const char *const dgx1[] = { "V100 16GB", "Tesla V100-SXM2-16GB", "V100-SXM2 16 GB" };
  for (guint i = 0; i < G_N_ELEMENTS (dgx1); i++)
    {
      g_autoptr (ResPublishedCase) c = row (dgx1[i], 32, 1, "", "", "fp16");
      if (!c->ready)
        g_error ("'%s': %s", dgx1[i], c->skip_reason);
      g_assert_cmpstr (c->cluster_name, ==, "dgx1-v100-cluster");
      g_assert_cmpint (c->family, ==, RES_PUB_FAMILY_OTHER);
      g_assert_cmpint (c->plan.compute_dtype, ==, PLAN_PREC_FP16);
    }
  g_autoptr (ResPublishedCase) v_bf16 = row ("V100", 32, 1, "", "", "amp_bf16");
  g_assert_false (v_bf16->ready);
  g_assert_cmpstr (v_bf16->skip_reason, ==, "precision 'amp_bf16': V100-SXM3-32GB has no BF16 "
                   "tensor cores (hint: Volta runs used fp16; check the gpu_type and precision "
                   "cells)");
  g_autoptr (ResPublishedCase) v_fp8 = row ("V100", 32, 1, "", "", "fp8");
  g_assert_false (v_fp8->ready);
  g_assert_cmpstr (v_fp8->skip_reason, ==, "V100-SXM3-32GB has no FP8 tensor cores (hint: "
                   "--precision fp16)");
  /* the same "fp16" cell on an A100 keeps bf16 (same tensor rate; the dev rows' reading) */
  g_autoptr (ResPublishedCase) a_fp16 = row ("A100-SXM-80GB", 32, 1, "", "", "fp16");
  g_assert_cmpint (a_fp16->plan.compute_dtype, ==, PLAN_PREC_BF16);
  /* CDNA2 has no FP8: an FP8 row on MI250X says so rather than "no preset" */
  g_autoptr (ResPublishedCase) mi_fp8 = row ("MI250X", 8, 1, "", "", "fp8");
  g_assert_false (mi_fp8->ready);
  g_assert_cmpstr (mi_fp8->cluster_name, ==, "frontier");
  g_assert_nonnull (strstr (mi_fp8->skip_reason, "MI250X-GCD-64GB has no FP8 tensor cores"));
  /* the preset's figures reach the case: MI250X 383.0 TFLOP/s BF16 per module / 2 GCDs =
   * 191.5e12 per device; H20 148e12 BF16, 296e12 FP8; B300 2,250e12 BF16, 13,500e12 FP4 */
  g_autoptr (ResPublishedCase) mi = row ("MI250X", 8, 1, "", "", "bf16");
  g_assert_cmpfloat (fabs (mi->cluster->device.peak_flops[TOPO_DTYPE_BF16] - 191.5e12), <, 1e6);
  g_assert_cmpfloat (mi->cluster->device.peak_flops[TOPO_DTYPE_FP8], ==, 0.0);
  /* no AMD GEMM measurement but MI325X's: 784.9 / 1,307.4 = 0.600 for MI250X and MI355X;
   * MI355X BF16 = 256 CUs x 4,096 FLOP/cycle x 2.4 GHz = 2,516.6e12 */
  g_assert_cmpfloat (mi->cluster->device.gemm_efficiency, ==, 0.6);
  g_autoptr (ResPublishedCase) mi355 = row ("MI355X", 8, 1, "", "", "fp8");
  g_assert_true (mi355->ready);
  g_assert_cmpfloat (mi355->cluster->device.gemm_efficiency, ==, 0.6);
  g_assert_cmpfloat (fabs (mi355->cluster->device.peak_flops[TOPO_DTYPE_BF16] - 2516.6e12), <, 1e6);
  /* MI350X, the same die at 2.2 GHz: 256 x 4,096 x 2.2e9 = 2,306.9e12 BF16, twice that in
   * FP8 (4,613.8e12), MXFP8 as the MI355X */
  g_autoptr (ResPublishedCase) mi350 = row ("MI350X", 8, 1, "", "", "mxfp8");
  g_assert_true (mi350->ready);
  g_assert_cmpfloat (fabs (mi350->cluster->device.peak_flops[TOPO_DTYPE_BF16] - 2306.9e12), <, 1e6);
  g_assert_cmpfloat (fabs (mi350->cluster->device.peak_flops[TOPO_DTYPE_FP8] - 4613.8e12), <, 1e6);
  g_autoptr (ResPublishedCase) h20 = row ("H20", 8, 1, "", "", "fp8");
  g_assert_true (h20->ready);
  g_assert_cmpfloat (fabs (h20->cluster->device.peak_flops[TOPO_DTYPE_BF16] - 148e12), <, 1e6);
  g_assert_cmpfloat (fabs (h20->cluster->device.peak_flops[TOPO_DTYPE_FP8] - 296e12), <, 1e6);
  /* the 94 / 96 GB H100 preset's 500 W clock (0.879 of the 700 W clock), unless the row
   * says its parts ran at 700 W (read at 500 W before) */
  g_autoptr (ResPublishedCase) h96 = row ("H100-SXM-96GB-HBM2e (500 W)", 8, 1, "", "", "bf16");
  g_assert_cmpstr (h96->cluster_name, ==, "h100-sxm-96g-superpod");
  g_assert_cmpfloat (h96->cluster->device.power_cap_clock_ratio, ==, 0.879);
  g_autoptr (ResPublishedCase) h96f = row ("H100 SXM 94GB (700 W)", 8, 1, "", "", "bf16");
  g_assert_cmpstr (h96f->cluster_name, ==, "h100-sxm-96g-superpod");
  g_assert_cmpfloat (h96f->cluster->device.power_cap_clock_ratio, ==, 1.0);
  g_autoptr (ResPublishedCase) b300 = row ("B300", 8, 1, "", "", "NVFP4");
  g_assert_true (b300->ready);
  g_assert_cmpfloat (fabs (b300->cluster->device.peak_flops[TOPO_DTYPE_FP4] - 13500e12), <, 1e6);
}

static void
test_sharding (void)
{
  static const struct { const char *text, *framework; int pp; PlanSharding want; } rows[] = {
    /* empty: NeMo / Megatron-Core -> distributed optimizer; older Megatron-LM -> none;
     * else the stack's default (FSDP stacks zero3, DeepSpeed zero1) */
    { "", "NeMo 24.07", 1, PLAN_SHARD_ZERO1 },
    { "", "Megatron-Core r0.8.0", 1, PLAN_SHARD_ZERO1 },
    { "", "Megatron-LM (2021)", 1, PLAN_SHARD_NONE },
    { "", "torchtitan", 1, PLAN_SHARD_ZERO3 },
    { "", "Composer/llm-foundry", 1, PLAN_SHARD_ZERO3 },
    { "", "Megatron-DeepSpeed", 1, PLAN_SHARD_ZERO1 },
    /* negations */
    { "FSDP off", "PyTorch", 1, PLAN_SHARD_NONE },
    { "no FSDP (DDP)", "PyTorch", 1, PLAN_SHARD_NONE },
    { "NO_SHARD", "PyTorch FSDP", 1, PLAN_SHARD_NONE },
    { "ZeRO-0", "DeepSpeed", 1, PLAN_SHARD_NONE },
    /* a count of 0 after the scheme says it off, as NVIDIA's tables print their FSDP
     * column ("FSDP 0" was zero3, where "FSDP = 0" and "FSDP: 0" were off); a positive
     * count is the scheme in use, and a 0 beside the scheme used leaves it */
    { "FSDP 0", "PyTorch", 1, PLAN_SHARD_NONE },
    { "FSDP-0", "PyTorch", 1, PLAN_SHARD_NONE },
    { "FSDP = 0", "PyTorch", 1, PLAN_SHARD_NONE },
    { "FSDP: 0", "PyTorch", 1, PLAN_SHARD_NONE },
    { "ZeRO 0", "DeepSpeed", 1, PLAN_SHARD_NONE },
    { "FSDP 8", "PyTorch", 1, PLAN_SHARD_ZERO3 },
    { "FSDP 16", "PyTorch", 1, PLAN_SHARD_ZERO3 },
    { "distributed optimizer (FSDP 0)", "NeMo Megatron-Bridge 25.11 (Megatron-Core)", 1,
      PLAN_SHARD_ZERO1 },
    /* FSDP said off is not the distributed optimizer said off: where the stack's default
     * is no FSDP (zero1 on nemo / megatron-core / deepspeed, none on megatron-lm-2021) the
     * row reads as the empty cell does (each of these was none beside an empty cell's
     * zero1); where the default is FSDP (pytorch-fsdp, torchtitan, LitGPT's HYBRID_SHARD)
     * it is what was said off: none. ZeRO said off, or the distributed optimizer, or DDP
     * named, stays none. */
    { "FSDP 0", "NeMo Megatron-Bridge 25.11 (Megatron-Core)", 1, PLAN_SHARD_ZERO1 },
    { "FSDP = 0", "NeMo Megatron-Bridge 25.11 (Megatron-Core)", 1, PLAN_SHARD_ZERO1 },
    { "FSDP: 0", "NeMo 24.07", 1, PLAN_SHARD_ZERO1 },
    { "0 (no FSDP)", "NeMo 24.07", 1, PLAN_SHARD_ZERO1 },
    { "FSDP off", "NeMo 24.07", 1, PLAN_SHARD_ZERO1 },
    { "no FSDP", "Megatron-Core r0.8.0", 1, PLAN_SHARD_ZERO1 },
    { "FSDP (not used)", "Megatron-Core r0.8.0", 1, PLAN_SHARD_ZERO1 },
    { "no FSDP", "", 1, PLAN_SHARD_ZERO1 },
    { "no FSDP", "Megatron-DeepSpeed", 1, PLAN_SHARD_ZERO1 },
    { "no FSDP", "Megatron-LM (2021)", 1, PLAN_SHARD_NONE },
    { "no FSDP", "torchtitan", 1, PLAN_SHARD_NONE },
    { "FSDP = 0", "PyTorch FSDP", 1, PLAN_SHARD_NONE },
    { "no FSDP", "LitGPT", 1, PLAN_SHARD_NONE },
    { "no FSDP", "Meta internal (4D parallel, NCCLX)", 1, PLAN_SHARD_NONE },
    { "no FSDP, no distributed optimizer", "NeMo 24.07", 1, PLAN_SHARD_NONE },
    { "FSDP 0, use_distributed_optimizer=False", "NeMo 24.07", 1, PLAN_SHARD_NONE },
    /* DDP named in FSDP's place on Megatron-Core is its DistributedDataParallel wrapper,
     * which holds the distributed optimizer (DistributedDataParallelConfig's
     * use_distributed_optimizer): nothing said of the optimizer, the stack's default (it
     * read none; NVIDIA's tables gloss "FSDP = 0" as "use DDP") */
    { "no FSDP (DDP)", "Megatron-Core r0.8.0", 1, PLAN_SHARD_ZERO1 },
    /* ... not PyTorch's own DDP, which cannot hold it, nor on DeepSpeed (whose zero1 is
     * its ZeRO): none, as before */
    { "no FSDP, plain PyTorch DDP (--use-torch-ddp)", "Megatron-Core r0.8.0", 1,
      PLAN_SHARD_NONE },
    { "FSDP 0 (torch DDP, --ddp-impl torch)", "NeMo 24.07", 1, PLAN_SHARD_NONE },
    { "FSDP 0 (use DDP)", "DeepSpeed", 1, PLAN_SHARD_NONE },
    /* ... and none where the cell also says no sharding at all (these read zero1) */
    { "no FSDP (data parallel only)", "NeMo 24.07", 1, PLAN_SHARD_NONE },
    { "no FSDP (data parallel only)", "Megatron-Core r0.8.0", 1, PLAN_SHARD_NONE },
    { "no FSDP, pure DP", "NeMo 24.07", 1, PLAN_SHARD_NONE },
    { "no FSDP, pure DP", "Megatron-DeepSpeed", 1, PLAN_SHARD_NONE },
    { "no FSDP; optimizer not sharded", "Megatron-Core r0.8.0", 1, PLAN_SHARD_NONE },
    { "no FSDP; optimizer not sharded", "Megatron-DeepSpeed", 1, PLAN_SHARD_NONE },
    { "no FSDP, replicated", "NeMo 24.07", 1, PLAN_SHARD_NONE },
    /* an FSDP axis of 1 beside words that say no sharding (Pax's mesh): none (read as
     * zero3); NVIDIA's "FSDP 1" alone stays its FSDP switch */
    { "DP 64, FSDP 1 (pure data parallel)", "Paxml", 1, PLAN_SHARD_NONE },
    { "dp=64, fsdp=1 (parameters replicated)", "MaxText", 1, PLAN_SHARD_NONE },
    { "DP 64 across 8 nodes, FSDP 1 (pure data parallel)", "Paxml", 1, PLAN_SHARD_NONE },
    /* FSDP's FULL_SHARD mode said off is the mode off, not FSDP: none, as before FSDP said
     * off took the stack's default (these read zero1) */
    { "not full shard", "NeMo 24.07", 1, PLAN_SHARD_NONE },
    { "full shard off", "Megatron-Core r0.8.0", 1, PLAN_SHARD_NONE },
    { "full shard off", "Megatron-DeepSpeed", 1, PLAN_SHARD_NONE },
    /* "no FSDP resharding" says FSDP on, without resharding after the forward: zero2 (it
     * read as FSDP off, zero1) */
    { "no FSDP resharding", "NeMo 24.07", 1, PLAN_SHARD_ZERO2 },
    { "no FSDP resharding", "Megatron-Core r0.8.0", 1, PLAN_SHARD_ZERO2 },
    { "no FSDP resharding", "PyTorch", 1, PLAN_SHARD_ZERO2 },
    { "FSDP, no reshard after forward", "PyTorch", 1, PLAN_SHARD_ZERO2 },
    { "no ZeRO", "NeMo 24.07", 1, PLAN_SHARD_NONE },
    /* the distributed optimizer negated earlier in its clause (these read zero1) */
    { "DDP, not using the distributed optimizer", "Megatron-Core r0.8.0", 1, PLAN_SHARD_NONE },
    { "none (predates the distributed optimizer)", "Megatron-Core r0.8.0", 1, PLAN_SHARD_NONE },
    { "no FSDP, distributed optimizer", "Megatron-Core r0.8.0", 1, PLAN_SHARD_ZERO1 },
    { "ZeRO-0", "Megatron-Core r0.8.0", 1, PLAN_SHARD_NONE },
    { "ZeRO 0", "NeMo 24.07", 1, PLAN_SHARD_NONE },
    /* a scheme said not used is no scheme of the row, as precision reads "FP8 (not used)":
     * "FSDP (not used)" names FSDP only to say it was off, none (it was zero3); a scheme
     * said off beside one used is the one used */
    { "FSDP (not used)", "PyTorch", 1, PLAN_SHARD_NONE },
    { "ZeRO-1 (not FSDP)", "DeepSpeed", 1, PLAN_SHARD_ZERO1 },
    /* ... with its stage number between the scheme and "off" (they read as that stage in
     * use, where "no ZeRO-3" was none; audit of 7 Dec) */
    { "ZeRO-3 off", "DeepSpeed", 1, PLAN_SHARD_NONE },
    { "ZeRO-3 not used", "DeepSpeed", 1, PLAN_SHARD_NONE },
    { "ZeRO-3: no", "DeepSpeed", 1, PLAN_SHARD_NONE },
    { "ZeRO stage 3 (not used)", "DeepSpeed", 1, PLAN_SHARD_NONE },
    /* the stage as a word (not recognised before) */
    { "ZeRO stage three", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    /* a stage in words later in the cell does not override the stage stated first
     * (both read as ZeRO-3 for a while) */
    { "ZeRO-1 (stage three was slower)", "DeepSpeed", 1, PLAN_SHARD_ZERO1 },
    { "ZeRO-2 (ZeRO stage three ran out of memory)", "DeepSpeed", 1, PLAN_SHARD_ZERO2 },
    { "ZeRO (stage three)", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    { "DeepSpeed ZeRO, stage two", "DeepSpeed", 1, PLAN_SHARD_ZERO2 },
    { "ZeRO-two", "DeepSpeed", 1, PLAN_SHARD_ZERO2 },
    { "ZeRO stage one", "DeepSpeed", 1, PLAN_SHARD_ZERO1 },
    /* stage 0 named: ZeRO off, whatever its gloss says of optimizer sharding (SmolLM3's
     * report; it read zero1 by the "optimizer state sharding" its "no" negates), on any
     * stack; not where a stage 1-3 is named too */
    { "ZeRO-0 (\"we opted for ZeRO-0, meaning no optimizer state sharding\")", "nanotron", 1,
      PLAN_SHARD_NONE },
    { "ZeRO-0 (no optimizer state sharding)", "Megatron-Core", 1, PLAN_SHARD_NONE },
    { "ZeRO stage 0", "DeepSpeed", 1, PLAN_SHARD_NONE },
    { "ZeRO-0 in the baseline; ZeRO-1 here", "DeepSpeed", 1, PLAN_SHARD_ZERO1 },
    /* SageMaker SMP's sharded data parallelism shards parameters, gradients and
     * optimizer states over the data-parallel group: zero3 (not recognised before) */
    { "sharded data parallel (SageMaker SMP)", "PyTorch", 1, PLAN_SHARD_ZERO3 },
    { "ZeRO-1 disabled", "DeepSpeed", 1, PLAN_SHARD_NONE },
    /* ZeRO stages */
    { "ZeRO-1 (DeepSpeed)", "DeepSpeed", 1, PLAN_SHARD_ZERO1 },
    { "distributed optimizer", "Megatron-Core", 1, PLAN_SHARD_ZERO1 },
    { "ZeRO-DP stage 2 (Pos+g)", "DeepSpeed", 1, PLAN_SHARD_ZERO2 },
    { "SHARD_GRAD_OP", "PyTorch FSDP", 1, PLAN_SHARD_ZERO2 },
    { "FSDP over DP: shards optimizer+grads (ZeRO-2-like)", "", 1, PLAN_SHARD_ZERO2 },
    { "ZeRO-3 (DeepSpeed)", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    /* the stage after "ZeRO" in other spellings, and the names of the sharded optimizer */
    { "ZeRO 1", "DeepSpeed", 1, PLAN_SHARD_ZERO1 },
    { "ZeRO Stage-1", "DeepSpeed", 1, PLAN_SHARD_ZERO1 },
    { "zero_stage=1", "DeepSpeed", 1, PLAN_SHARD_ZERO1 },
    { "zero stage: 2", "DeepSpeed", 1, PLAN_SHARD_ZERO2 },
    { "ZeRO 3", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    { "--use-distributed-optimizer", "Megatron-Core", 1, PLAN_SHARD_ZERO1 },
    { "use_distributed_optimizer: true", "Megatron-Core", 1, PLAN_SHARD_ZERO1 },
    { "sharded optimizer", "Megatron-Core", 1, PLAN_SHARD_ZERO1 },
    { "optimizer sharded over DP", "Megatron-Core", 1, PLAN_SHARD_ZERO1 },
    { "optimizer states sharded", "Megatron-Core", 1, PLAN_SHARD_ZERO1 },
    { "optimizer sharding", "Megatron-Core", 1, PLAN_SHARD_ZERO1 },
    /* Fully Sharded Data Parallel by its name and FSDP2's call (PyTorch FSDP keeps
     * nothing unsharded: zero3 on a stack that reshards after the forward) */
    { "fully sharded", "PyTorch", 1, PLAN_SHARD_ZERO3 },
    { "Fully Sharded Data Parallel", "PyTorch", 1, PLAN_SHARD_ZERO3 },
    { "fully_shard", "PyTorch", 1, PLAN_SHARD_ZERO3 },
    /* offloading said to be off is no offloading */
    { "ZeRO-3, no offload", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    /* ... also where a later mention reports a trial, a reason or another row: only a
     * mention that says where it offloads or that it is on turns it on (these were
     * skipped as offloading once offloads were read one by one) */
    { "ZeRO-3 (no offload; offloading was 2x slower)", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    { "ZeRO-3, no offload (offload tested separately in row 12)", "DeepSpeed", 1,
      PLAN_SHARD_ZERO3 },
    { "ZeRO-3, offload: none (offload_param would need NVMe)", "DeepSpeed", 1,
      PLAN_SHARD_ZERO3 },
    { "ZeRO-2 without offload, unlike ZeRO-Offload", "DeepSpeed", 1, PLAN_SHARD_ZERO2 },
    /* ... or says it on only for another row, configuration or table (each skipped as
     * offloading) */
    { "ZeRO-3 (offload disabled; offload on for the 70B row)", "DeepSpeed", 1,
      PLAN_SHARD_ZERO3 },
    { "ZeRO-3, no CPU offload; offload to CPU only in the 175B config", "DeepSpeed", 1,
      PLAN_SHARD_ZERO3 },
    { "ZeRO-3 w/o offload (offload: true in row 7)", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    { "ZeRO-3, no offload (vs. offload to NVMe in Table 5)", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    { "ZeRO-3, no offload (offload to CPU in the other runs)", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    /* a DeepSpeed offload key said off past its suffix (skipped as offloading) */
    { "ZeRO-3, offload_param: none", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    { "ZeRO-3, offload_optimizer: false", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    /* ... and inside a DeepSpeed config pasted as JSON or YAML, the verdict past the
     * brace, the quotes and the "device" key (skipped as offloading) */
    { "ZeRO-3, \"offload_optimizer\": {\"device\": \"none\"}", "DeepSpeed", 1,
      PLAN_SHARD_ZERO3 },
    { "ZeRO-3, \"offload_param\": {\"device\": \"none\"}, \"offload_optimizer\": "
      "{\"device\": \"none\"}", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    { "ZeRO-3; offload_optimizer: {device: none}", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    /* NVIDIA's "FSDP 1" beside a word about some tensors' replication stays FSDP */
    { "FSDP 1; embeddings replicated", "NeMo 24.07", 1, PLAN_SHARD_ZERO3 },
    /* ... and beside its gloss of the value it did not take, FSDP 0 (up to the end of
     * that clause or bracket), or a word about the gathered form or a pass: FSDP, zero3 on
     * nemo as "FSDP 1" alone. They read as no sharding ("unsharded", "parameters
     * replicated", "plain DDP" anywhere in the cell), and the first as zero1 (the
     * distributed optimizer of FSDP 0) */
    { "FSDP 1 (the table's nomenclature; FSDP 0 would be plain DDP with the distributed "
      "optimizer)", "NeMo Megatron-Bridge 25.11 (Megatron-Core)", 1, PLAN_SHARD_ZERO3 },
    { "FSDP 1 (use FSDP; 0 = unsharded DDP)", "NeMo Megatron-Bridge 25.11 (Megatron-Core)", 1,
      PLAN_SHARD_ZERO3 },
    { "FSDP 1 vs. FSDP 0 (parameters replicated) in the next row",
      "NeMo Megatron-Bridge 25.11 (Megatron-Core)", 1, PLAN_SHARD_ZERO3 },
    { "Megatron-FSDP, FSDP 1 (parameters are all-gathered to their unsharded form layer by "
      "layer)", "NeMo Megatron-Bridge 25.11 (Megatron-Core)", 1, PLAN_SHARD_ZERO3 },
    { "FSDP: 1 (use_megatron_fsdp=True; reshard_after_forward off, params stay unsharded "
      "for backward)", "NeMo Megatron-Bridge 25.11 (Megatron-Core)", 1, PLAN_SHARD_ZERO3 },
    /* the gloss of FSDP 0 is not the run's, the words of FSDP 1's own bracket are: none */
    { "DP 64, FSDP 1 (pure data parallel; FSDP 0 would be the same)", "Paxml", 1,
      PLAN_SHARD_NONE },
    /* a 0 before ':' or '=' after another word (an axis's name, a key) is that word's
     * value, not FSDP 0: FSDP, zero3 (test_sharding_explain: the line says nothing of
     * FSDP 0); an offload said off after a key's 0 was blanked as FSDP 0's gloss, and the
     * cell's "offloading" then read on (the seventh audit: skipped as offloading) */
    { "FSDP 1 (Megatron-FSDP, cpu_offloading_num_layers=0: no offload)",
      "NeMo Megatron-Bridge 25.11 (Megatron-Core)", 1, PLAN_SHARD_ZERO3 },
    { "FSDP 1 (Megatron-FSDP; EP 0: n/a for dense)", "NeMo Megatron-Bridge 25.11 (Megatron-Core)",
      1, PLAN_SHARD_ZERO3 },
    { "FSDP=1, DDP=0: n/a, sharding optim_grads_params",
      "NeMo Megatron-Bridge 25.11 (Megatron-Core)", 1, PLAN_SHARD_ZERO3 },
    { "FSDP 1 (Megatron-FSDP), CP 0 = no context parallel",
      "NeMo Megatron-Bridge 25.11 (Megatron-Core)", 1, PLAN_SHARD_ZERO3 },
    { "FSDP FULL_SHARD (ZeRO-3)", "Composer/llm-foundry", 1, PLAN_SHARD_ZERO3 },
    { "FSDP2 (full shard)", "torchtitan", 1, PLAN_SHARD_ZERO3 },
    /* torchtitan's FSDP2 keeps parameters unsharded across micro-batches under PP */
    { "FSDP2 (full shard)", "torchtitan", 2, PLAN_SHARD_ZERO2 },
    /* ... also with full sharding named as the mode (which wins over a stack's default of
     * no reshard, nemo-automodel's: test_automodel_stack); Meta's stack, which does not
     * reshard after the forward, reads FULL_SHARD as said (it was zero2) and FSDP by its
     * name as its own default */
    { "FULL_SHARD", "torchtitan", 2, PLAN_SHARD_ZERO2 },
    { "ZeRO-3", "torchtitan", 2, PLAN_SHARD_ZERO2 },
    { "FSDP FULL_SHARD", "Meta internal (4D parallel, NCCLX)", 1, PLAN_SHARD_ZERO3 },
    { "FSDP", "Meta internal (4D parallel, NCCLX)", 1, PLAN_SHARD_ZERO2 },
    /* a stack that reshards under PP keeps zero3 there (Megatron-FSDP's
     * optim_grads_params; Composer/llm-foundry has no pipeline: test-published.c
     * test_published_offered) */
    { "FSDP FULL_SHARD", "Megatron-Core", 2, PLAN_SHARD_ZERO3 },
    { "none (Megatron DDP)", "Megatron-LM", 1, PLAN_SHARD_NONE },
    /* a cell that says it is not stated reads as empty: the stack's default */
    { "not stated", "torchtitan", 1, PLAN_SHARD_ZERO3 },
    { "unknown", "NeMo 24.07", 1, PLAN_SHARD_ZERO1 },
    { "n/a", "Megatron-DeepSpeed", 1, PLAN_SHARD_ZERO1 },
    { "-", "Megatron-LM (2021)", 1, PLAN_SHARD_NONE },
    /* MaxText's fsdp axis with one dcn replica is plain FSDP */
    { "fsdp=16, dcn=1", "MaxText", 1, PLAN_SHARD_ZERO3 },
    /* DeepSpeed ZeRO++ is ZeRO-3 underneath (its compression is not modelled) */
    { "ZeRO++", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    { "ZeRO++ (qwZ, hpZ, qgZ)", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    { "zeropp", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    /* a yes/no cell answered no; "no" inside longer text is not a negation */
    { "no", "PyTorch", 1, PLAN_SHARD_NONE },
    { "Off", "PyTorch", 1, PLAN_SHARD_NONE },
    { "false", "PyTorch", 1, PLAN_SHARD_NONE },
    { "0", "DeepSpeed", 1, PLAN_SHARD_NONE },
    { "ZeRO-3 (DeepSpeed), no model parallelism", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    /* empty on the megatron-core stack: its documented default, the distributed optimizer
     * (frameworks/presets/megatron-core.json; these read none, Megatron-LM of 2019-22,
     * which keeps its own stack, megatron-lm-2021, and its none) */
    { "", "", 1, PLAN_SHARD_ZERO1 },
    { "", "MCore 0.12", 1, PLAN_SHARD_ZERO1 },
    { "", "Megatron-LM (2024)", 1, PLAN_SHARD_ZERO1 },
    { "", "Nanotron", 1, PLAN_SHARD_ZERO1 },
    { "", "Hugging Face Nanotron", 1, PLAN_SHARD_ZERO1 },
    /* LitGPT's pretrain.py shards HYBRID_SHARD on more than one device: hsdp (the group:
     * one server, 8 of the 16 A100s) */
    { "", "LitGPT", 1, PLAN_SHARD_HSDP },
    /* table dashes and "N.A." say nothing: the stack's default */
    { "\xe2\x80\x94", "NeMo 24.07", 1, PLAN_SHARD_ZERO1 },
    { "N.A.", "torchtitan", 1, PLAN_SHARD_ZERO3 },
    /* a bare stage in this column is DeepSpeed's zero_optimization.stage, also written as
     * its config key */
    { "1", "DeepSpeed", 1, PLAN_SHARD_ZERO1 },
    { "2", "DeepSpeed", 1, PLAN_SHARD_ZERO2 },
    { "3", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    { "zero_optimization.stage=3", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    { "zero_optimization: {stage: 2}", "DeepSpeed", 1, PLAN_SHARD_ZERO2 },
    /* NeMo's distributed_fused_adam and the distributed optimizer's short names */
    { "distributed_fused_adam", "NeMo", 1, PLAN_SHARD_ZERO1 },
    { "distributed Adam", "NeMo", 1, PLAN_SHARD_ZERO1 },
    { "dist. optimizer", "Megatron-Core", 1, PLAN_SHARD_ZERO1 },
    { "DistOpt", "Megatron-Core", 1, PLAN_SHARD_ZERO1 },
    { "dist-opt", "Megatron-Core", 1, PLAN_SHARD_ZERO1 },
    /* Colossal-AI's Gemini, chunked ZeRO-3 (not recognised) */
    { "Gemini (placement_policy static)", "Colossal-AI", 1, PLAN_SHARD_ZERO3 },
    { "GeminiPlugin", "Colossal-AI", 1, PLAN_SHARD_ZERO3 },
    /* "auto" or "cpu" not of the placement, and Gemini compared with (a rule that took
     * any such word refused the first two as offloading, and read the third zero3) */
    { "Gemini (static placement; chunk size auto-searched)", "Colossal-AI", 1,
      PLAN_SHARD_ZERO3 },
    { "GeminiPlugin (placement_policy static) with HybridAdam (CPU/GPU Adam kernels)",
      "Colossal-AI", 1, PLAN_SHARD_ZERO3 },
    { "ZeRO-2 (Colossal-AI LowLevelZeroPlugin; faster than Gemini here)", "Colossal-AI", 1,
      PLAN_SHARD_ZERO2 },
    /* ... and beside a ZeRO stage named, whatever the words between (the seventh audit:
     * each read zero3) */
    { "ZeRO-2 (LowLevelZeroPlugin), 1.2x faster than the Gemini run", "Colossal-AI", 1,
      PLAN_SHARD_ZERO2 },
    { "ZeRO-2 (Gemini OOMs at this size)", "Colossal-AI", 1, PLAN_SHARD_ZERO2 },
    { "ZeRO-1 (LowLevelZero stage 1; Gemini in the 70B row)", "Colossal-AI", 1,
      PLAN_SHARD_ZERO1 },
    /* ... in either order: which ran is not told by it ("Gemini OOMs at this size; ZeRO-2
     * used" ran ZeRO-2, "Gemini (vs ZeRO-2: 1.3x)" Gemini), and the ZeRO stage is read, as
     * it was before Gemini was known (the ninth audit: a rule that took the first named
     * read the first as zero3) */
    { "Gemini OOMs at this size; ZeRO-2 (LowLevelZeroPlugin) used", "Colossal-AI", 1,
      PLAN_SHARD_ZERO2 },
    /* NeMo 2's optimizer name in a logged config (not recognised) */
    { "optim: mcore_distributed_optim, overlap_grad_sync: true", "NeMo", 1, PLAN_SHARD_ZERO1 },
    /* ... said off, as the distributed optimizer's other names are (read zero1) */
    { "plain DDP; distributed_optim off", "Megatron-Core", 1, PLAN_SHARD_NONE },
    /* Megatron-FSDP's --data-parallel-sharding-strategy values */
    { "optim_grads_params", "Megatron-Core", 1, PLAN_SHARD_ZERO3 },
    { "Megatron-FSDP (optim_grads)", "Megatron-Core", 1, PLAN_SHARD_ZERO2 },
    { "sharding strategy: optim", "Megatron-Core", 1, PLAN_SHARD_ZERO1 },
    /* plain data parallelism named: no sharding (these were skipped) */
    { "DistributedDataParallel", "PyTorch", 1, PLAN_SHARD_NONE },
    { "data parallel", "PyTorch", 1, PLAN_SHARD_NONE },
    { "DP only", "PyTorch", 1, PLAN_SHARD_NONE },
    { "pure DP", "PyTorch", 1, PLAN_SHARD_NONE },
    { "DP", "Megatron-Core", 1, PLAN_SHARD_NONE },
    { "replicated", "PyTorch", 1, PLAN_SHARD_NONE },
    /* the distributed optimizer said to be off is Megatron's DDP, no sharding (each was
     * read as zero1 by the name); said on, it stays zero1 ("use_distributed_optimizer:
     * true" above) */
    { "no distributed optimizer", "Megatron-Core", 1, PLAN_SHARD_NONE },
    { "distributed optimizer: off", "NeMo 24.07", 1, PLAN_SHARD_NONE },
    { "use_distributed_optimizer=False", "Megatron-Core", 1, PLAN_SHARD_NONE },
    { "--use-distributed-optimizer false", "Megatron-Core", 1, PLAN_SHARD_NONE },
    { "without distributed optimizer", "Megatron-Core", 1, PLAN_SHARD_NONE },
    { "DistOpt: no", "Megatron-Core", 1, PLAN_SHARD_NONE },
    /* FSDP2's reshard_after_forward as the row states it, in any spelling, on a stack that
     * reshards (pytorch-fsdp: fully_shard above is zero3): False keeps the parameters
     * gathered from the forward to the backward, zero2 (read as zero3; a cell with the
     * argument alone was not recognised); True under torchtitan's PP (zero2 by the stack,
     * above) is zero3 */
    { "FSDP2, reshard_after_forward=False", "PyTorch", 1, PLAN_SHARD_ZERO2 },
    { "FSDP (reshard_after_forward: false)", "PyTorch", 1, PLAN_SHARD_ZERO2 },
    { "reshard_after_forward=False", "PyTorch", 1, PLAN_SHARD_ZERO2 },
    { "fully_shard(reshard_after_forward=True)", "torchtitan", 2, PLAN_SHARD_ZERO3 },
    /* torchtitan's fsdp_reshard_after_forward policy, quoted as its toml writes it (the
     * CSV doubles the quote): "never" read as zero3, and "always" under PP, where its
     * default keeps the parameters, as zero2 */
    { "FSDP256, fsdp_reshard_after_forward=\"\"never\"\"", "torchtitan", 1, PLAN_SHARD_ZERO2 },
    { "FSDP, fsdp_reshard_after_forward = 'always'", "torchtitan", 2, PLAN_SHARD_ZERO3 },
    /* torchtitan's data-parallel degrees (config Parallelism): a shard degree alone (-1,
     * its default, the ranks left) is FSDP, zero3 on torchtitan at pp 1; shard 1 with
     * replicas is DDP (none); they were not recognised */
    { "dp_shard=16", "torchtitan", 1, PLAN_SHARD_ZERO3 },
    { "data_parallel_shard_degree=-1", "torchtitan", 1, PLAN_SHARD_ZERO3 },
    { "dp_shard=1, dp_replicate=16", "torchtitan", 1, PLAN_SHARD_NONE },
    /* no sharding in words, or a label said off (not recognised; "no sharding" was
     * none already), on a stack whose default shards; "stage-3" as "stage 3" (not
     * recognised) */
    { "sharding: none", "Megatron-Core r0.8.0", 1, PLAN_SHARD_NONE },
    { "unsharded", "Megatron-Core r0.8.0", 1, PLAN_SHARD_NONE },
    { "no sharding", "Megatron-Core r0.8.0", 1, PLAN_SHARD_NONE },
    { "stage-3", "DeepSpeed", 1, PLAN_SHARD_ZERO3 },
    /* empty beside a framework cell that names the ZeRO stage or FSDP: that (DeepSpeed's
     * default zero1 before) */
    { "", "HF Accelerate + DeepSpeed ZeRO-3", 1, PLAN_SHARD_ZERO3 },
    { "", "PyTorch FSDP", 1, PLAN_SHARD_ZERO3 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = row ("A100-SXM-80GB", 16, rows[i].pp, rows[i].text,
                                            rows[i].framework, "bf16");
      if (!c->ready || c->plan.sharding != rows[i].want)
        g_error ("'%s' / '%s' / pp %d: sharding %d, expected %d (%s)", rows[i].text,
                 rows[i].framework, rows[i].pp, c->plan.sharding, rows[i].want,
                 c->skip_reason ? c->skip_reason : "");
    }
  /* HSDP: the group from the text, else one server (FSDP HYBRID_SHARD shards in a node) */
  g_autoptr (ResPublishedCase) h1 = row ("H100-SXM-80GB", 64, 1, "HSDP 16x4", "torchtitan", "bf16");
  g_assert_cmpint (h1->plan.sharding, ==, PLAN_SHARD_HSDP);
  g_assert_cmpint (h1->plan.hsdp_shard_size, ==, 16);
  g_autoptr (ResPublishedCase) h2 = row ("H100-SXM-80GB", 64, 1, "HYBRID_SHARD", "PyTorch FSDP", "bf16");
  g_assert_cmpint (h2->plan.sharding, ==, PLAN_SHARD_HSDP);
  g_assert_cmpint (h2->plan.hsdp_shard_size, ==, 8);
  /* HSDP texts that name the shard group or the replica count, in either order, on 64
   * GPUs (tp 1, pp 1: dp 64): "shard 16" is a group of 16; "replicate 4" (TorchTitan's
   * data_parallel_replicate_degree) leaves groups of 64 / 4 = 16; an explicit shard wins
   * over the first number. Before, a '(' ended the search (one server, 8, was taken)
   * and "replicate 4 x shard 16" read the 4 as the group. */
  static const struct { const char *text; int group; } hs[] = {
    { "HSDP (shard 16, replicate 4)", 16 },
    { "HSDP: replicate 4 x shard 16", 16 },
    { "HSDP, replicate 4", 16 },
    { "HSDP (data_parallel_replicate_degree=2)", 32 },
    { "hybrid shard, shard group size 32", 32 },
    { "HSDP (dp_shard=16, dp_replicate=4)", 16 },
    { "HSDP 16x4", 16 },
    /* a replica count written before its word: "2 replicas" leaves groups of dp / 2 =
     * 64 / 2 = 32 (the first number after "hsdp" was read as the group, 2); "4-way
     * replicated" groups of 64 / 4 = 16 */
    { "HSDP, 2 replicas", 32 },
    { "HSDP, 4-way replicated", 16 },
    /* torchtitan's degrees without the word HSDP (not recognised before): replicate > 1
     * and shard > 1 is HSDP; shard -1 takes the ranks left, 64 / 4 = 16 */
    { "dp_shard 16, dp_replicate 4", 16 },
    { "data_parallel_shard_degree 8, data_parallel_replicate_degree 8", 8 },
    { "dp_replicate=4, dp_shard=-1", 16 },
    /* a config's integer expression (OLMo-core's 32B script: num_replicas=64 // 2, the
     * nodes halved): 64 // 2 = 32 replicas... here 8 // 2 = 4, groups of 64 / 4 = 16 (the
     * 8 was taken: groups of 8); "* 2": 2 x 2 = 4 replicas, 16 */
    { "HSDP (DataParallelType.hsdp, num_replicas=8 // 2)", 16 },
    { "HSDP, num_replicas=2 * 2", 16 },
    /* a shard group of whole nodes (one server's 8 was taken): 2 nodes of 8 = 16 */
    { "HSDP (sharding within 2 nodes)", 16 },
    { "HSDP (2-node shard groups)", 16 },
    /* ... and the verb after the nodes, as a label's value (one server's 8 was taken) */
    { "HSDP (within 2 nodes: shard; across: replicate)", 16 },
    /* ... and whole nodes in any clause about sharding (shard_nodes_in_clause; each took
     * one server's 8, the last a group of 2 GPUs) */
    { "HSDP, shard group of 2 nodes", 16 },
    { "HSDP: shard across 2 nodes (16 GPUs), replicate x4", 16 },
    { "HSDP with sharding over 2 nodes and replication over 4", 16 },
    { "HSDP (FSDP within 2 nodes = 16 GPUs, DDP across 4 groups)", 16 },
    { "HSDP with 2 nodes per shard group", 16 },
    { "HSDP: FSDP inside 2-node groups, replicated across 4 groups", 16 },
    /* ... not hybrid sharding's own name nor a clause about replicas: one server's 8 */
    { "hybrid shard over 8 nodes", 8 },
    { "HSDP: replicate over 8 nodes", 8 },
    /* ... nor the job's nodes, beside shards within a node or with no word of a group
     * (a rule that took any count of nodes in a clause about sharding read zero3 over
     * all 64) */
    { "HSDP on 8 nodes with FSDP inside each node", 8 },
    { "HSDP, sharded within each node across 8 nodes", 8 },
    { "Hybrid-sharded FSDP on 8 nodes", 8 },
    { "HSDP: FSDP over 8 GPUs/node x 8 nodes, DDP across nodes", 8 },
    { "HSDP; FSDP2 on 8 nodes (64 GPUs), sharding intra-node", 8 },
    /* ... nor all the job's nodes, which would be no hybrid sharding (the seventh audit:
     * zero3 over all 64) */
    { "HSDP with FSDP across 8 nodes and replication across 8 ranks", 8 },
    /* a group of whole nodes as a label's value, spanned, or before the scheme's groups
     * (the seventh audit: 2 GPUs, then out of memory, or one server's 8) */
    { "HSDP, shard group = 2 nodes", 16 },
    { "HSDP: each shard group spans 2 nodes", 16 },
    { "HSDP: 2-node FSDP groups", 16 },
    /* ... and not a count of GPUs: "within 32 GPUs" is shard_gpus_in's, 32 */
    { "HSDP (sharded within 32 GPUs)", 32 },
    /* whole nodes outside a bracket too, before the first number after "hsdp" (these
     * read 2 and 4): 2 x 8 = 16, 4 x 8 = 32 */
    { "HSDP sharded within 2 nodes", 16 },
    { "HSDP, shard within 4 nodes of 8 GPUs", 32 },
    /* a product of a count and its unit: 8 x 2 = 16, 2 x 8 = 16 */
    { "HSDP (shard group = 8 * 2 nodes)", 16 },
    { "HSDP, shard group 2 * 8 GPUs", 16 },
    /* a shard size named by its word wins over nodes that hold the job or the replicas
     * (the nodes, read first, gave groups of 32) */
    { "HSDP (shard_size=8, 4 replicas), all within 4 nodes", 8 },
    { "HSDP, dp_shard=8 (one node); job fits within 4 nodes", 8 },
    /* a replica count times the GPUs each holds: that many replicas (read as the
     * product): 4 replicas, groups of 64 / 4 = 16 */
    { "HSDP, num_replicas=4 * 8 GPUs", 16 },
    /* nodes counted after "hsdp" are no group: the 8 GPUs of a node (read as 2) */
    { "HSDP: replicate within 2 nodes, shard across the 8 GPUs of a node", 8 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (hs); i++)
    {
      g_autoptr (ResPublishedCase) h = row ("H100-SXM-80GB", 64, 1, hs[i].text, "torchtitan",
                                            "bf16");
      if (h->plan.sharding != PLAN_SHARD_HSDP || h->plan.hsdp_shard_size != hs[i].group)
        g_error ("'%s': sharding %d, group %d, expected hsdp with %d", hs[i].text,
                 h->plan.sharding, h->plan.hsdp_shard_size, hs[i].group);
    }
  /* MaxText's mesh: fsdp inside, data parallel over dcn -> hybrid, shard group = fsdp */
  g_autoptr (ResPublishedCase) h3 = row ("H100-SXM-80GB", 64, 1, "sharded (fsdp=16, dcn=4)",
                                         "MaxText", "bf16");
  g_assert_cmpint (h3->plan.sharding, ==, PLAN_SHARD_HSDP);
  g_assert_cmpint (h3->plan.hsdp_shard_size, ==, 16);
  g_autoptr (ResPublishedCase) h4 = row ("H100-SXM-80GB", 64, 1, "ici_fsdp 8 x dcn_data 8",
                                         "MaxText", "bf16");
  g_assert_cmpint (h4->plan.sharding, ==, PLAN_SHARD_HSDP);
  g_assert_cmpint (h4->plan.hsdp_shard_size, ==, 8);
  /* ... and MaxText's own keys, as gpu-recipes' launch flags write them (read as zero3
   * over all 64): fsdp 8 inside, 8 dcn replicas; an fsdp axis over dcn too shards over
   * both, 2 x 16 = 32, with 64 / 32 = 2 replicas */
  static const struct { const char *text; int group; } mx[] = {
    { "ici_fsdp_parallelism=8, dcn_data_parallelism=8", 8 },
    { "dcn_data_parallelism: 2, dcn_fsdp_parallelism: 2, ici_fsdp_parallelism: 16", 32 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (mx); i++)
    {
      g_autoptr (ResPublishedCase) h = row ("H100-SXM-80GB", 64, 1, mx[i].text, "MaxText",
                                            "bf16");
      if (h->plan.sharding != PLAN_SHARD_HSDP || h->plan.hsdp_shard_size != mx[i].group)
        g_error ("'%s': sharding %d, group %d, expected hsdp with %d", mx[i].text,
                 h->plan.sharding, h->plan.hsdp_shard_size, mx[i].group);
    }
  /* Meta's 4D parallelism orders [TP, CP, PP, DP] (Llama 3 paper, Sec. 3.3.2); other
   * rows keep Megatron's tp-cp-ep-dp-pp */
  g_autoptr (ResPublishedCase) meta = row ("H100-SXM-80GB (700W, HBM3)", 64, 2, "",
                                           "Meta internal (4D parallel, NCCLX)", "bf16");
  g_assert_true (meta->ready);
  g_assert_cmpstr (meta->plan.rank_order, ==, "tp-cp-ep-pp-dp");
  /* torchtitan's own "4D parallelism" is torchtitan: its stack reads "FSDP (PyTorch,
   * FULL_SHARD)" as zero3 (as meta-llama3 it was zero2), and its ranks keep the default
   * order; "4D parallel" with no name is the default stack, said not recognised */
  g_autoptr (ResPublishedCase) titan4d = row ("H100-SXM-80GB", 64, 1, "FSDP (PyTorch, FULL_SHARD)",
                                              "torchtitan (4D parallelism)", "bf16");
  g_assert_true (titan4d->ready);
  g_assert_cmpstr (titan4d->stack->name, ==, "torchtitan");
  g_assert_cmpint (titan4d->plan.sharding, ==, PLAN_SHARD_ZERO3);
  g_assert_cmpstr (titan4d->plan.rank_order, !=, "tp-cp-ep-pp-dp");
  g_autoptr (ResPublishedCase) bare4d = row ("H100-SXM-80GB", 64, 2, "",
                                             "in-house (4D parallelism)", "bf16");
  g_assert_true (bare4d->ready);
  g_assert_cmpstr (bare4d->stack->name, !=, "meta-llama3");
  g_assert_cmpstr (bare4d->stack_why, ==, "framework not recognised: the default stack");
  g_assert_cmpstr (bare4d->plan.rank_order, !=, "tp-cp-ep-pp-dp");
  /* a PyTorch trainer said to run 3D parallelism is not the FSDP-only pytorch-fsdp stack
   * (which skipped the row for its pipeline): the default stack, said not recognised */
  g_autoptr (ResPublishedCase) giga = row ("A100-SXM-80GB", 64, 2, "",
                                           "Gigatron (TII in-house, PyTorch 3D parallelism)",
                                           "bf16");
  if (!giga->ready)
    g_error ("%s", giga->skip_reason);
  g_assert_cmpstr (giga->stack->name, ==, FW_STACK_DEFAULT);
  g_assert_cmpstr (giga->stack_why, ==, "framework not recognised: the default stack");
  g_assert_cmpstr (h1->plan.rank_order, ==, "tp-cp-ep-dp-pp");
  /* ... and exchanges its pipeline activations asynchronously (same section): its stack,
   * meta-llama3, synchronizes nothing after an exchange, and the plan leaves it to the
   * stack (-1), as every other row does */
  g_assert_cmpstr (meta->stack->name, ==, "meta-llama3");
  g_assert_cmpint (meta->stack->pp_p2p_sync, ==, FW_P2P_SYNC_NONE);
  g_assert_cmpint (meta->plan.pp_p2p_sync, ==, -1);
  g_assert_cmpint (h1->plan.pp_p2p_sync, ==, -1);
  /* Megatron-LM's own pipeline code (2021-22) sends with scatter-gather: the stack the
   * framework text names (fw_stack_preset_for_text: "Megatron-LM" without "Core" or a
   * year from 2023 -> megatron-lm-2021) carries it, and the plan leaves it to the stack
   * (-1); Megatron-Core, Megatron-DeepSpeed (DeepSpeed's pipeline engine), NeMo and Meta's
   * stack do not send so */
  static const struct { const char *framework, *stack; gboolean sg; } fws[] = {
    { "Megatron-LM (2021)", "megatron-lm-2021", TRUE },
    { "Megatron-LM PTD", "megatron-lm-2021", TRUE },
    { "megatron-lm", "megatron-lm-2021", TRUE },
    { "Megatron-LM (2022)", "megatron-lm-2021", TRUE },
    { "Megatron-Core r0.8.0", "megatron-core", FALSE },
    { "Megatron-LM (Megatron-Core r0.12)", "megatron-core", FALSE },
    { "Megatron-LM (2024)", "megatron-core", FALSE },
    { "Megatron-DeepSpeed", "deepspeed", FALSE },
    { "NeMo 24.07 (Megatron-LM underneath)", "nemo", FALSE },
    /* "Nemotron" is a model family, not NeMo (these were the nemo stack: -46% on A100) */
    { "Megatron-LM (Nemotron recipe)", "megatron-lm-2021", TRUE },
    { "Megatron-Core (Nemotron-H recipe)", "megatron-core", FALSE },
    { "Meta internal (4D parallel, NCCLX)", "meta-llama3", FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (fws); i++)
    {
      g_autoptr (ResPublishedCase) c = row ("A100-SXM-80GB", 64, 2, "", fws[i].framework,
                                            "bf16");
      g_assert_true (c->ready);
      if (g_strcmp0 (c->stack->name, fws[i].stack) != 0 || c->plan.pp_scatter_gather != -1
          || c->stack->pp_scatter_gather != fws[i].sg)
        g_error ("framework '%s': stack %s, plan pp_scatter_gather %d, stack's %d, expected "
                 "%s / -1 / %d", fws[i].framework, c->stack->name, c->plan.pp_scatter_gather,
                 c->stack->pp_scatter_gather, fws[i].stack, fws[i].sg);
    }
  /* optimizer or parameters offloaded to the host or NVMe: skipped, saying so; one
   * offload said off does not say another off (the last read as no offloading, zero3) */
  static const char *const offl[] = { "ZeRO-Offload", "ZeRO-Infinity", "ZeRO-3 with CPU offload",
                                      "FSDP (CPU offload)",
                                      "DeepSpeed ZeRO-3, optimizer offload disabled, param "
                                      "offload to CPU",
                                      "ZeRO-3 (optimizer offload: cpu; no param offload)",
                                      /* an offload key on after another said off, and one
                                       * on for some states or "as in the other runs"
                                       * (each read no offloading) */
                                      "ZeRO-3, no activation offload; offload_optimizer: true",
                                      "ZeRO-3 (param offload off; optimizer offload on for "
                                      "the Adam states)",
                                      "ZeRO-3 (no param offload; optimizer offload to CPU as "
                                      "in the other runs)",
                                      /* a DeepSpeed config pasted as YAML or JSON: the
                                       * optimizer's device inside its braces, after a key
                                       * said off (read as no offloading: the "cpu" past
                                       * '{device:' was not seen), and JSON alone */
                                      "ZeRO-3; offload_param: none; offload_optimizer: "
                                      "{device: cpu, pin_memory: true}",
                                      "ZeRO-3, \"offload_param\": {\"device\": \"none\"}, "
                                      "\"offload_optimizer\": {\"device\": \"cpu\"}",
                                      "ZeRO-3, \"offload_optimizer\": {\"device\": \"nvme\"}" };
  for (guint i = 0; i < G_N_ELEMENTS (offl); i++)
    {
      g_autoptr (ResPublishedCase) c = row ("H100-SXM-80GB", 8, 1, offl[i], "DeepSpeed", "bf16");
      g_assert_false (c->ready);
      g_assert_nonnull (strstr (c->skip_reason, "offloading to host / NVMe memory is not modelled"));
    }
  /* Colossal-AI's Gemini with its auto or CPU placement moves chunks to the host */
  static const char *const gem_off[] = { "gemini (gemini_auto plugin)",
                                         "Gemini, placement_policy=\"\"cpu\"\"" };
  for (guint i = 0; i < G_N_ELEMENTS (gem_off); i++)
    {
      g_autoptr (ResPublishedCase) c = row ("A100-SXM4-80GB", 8, 1, gem_off[i], "Colossal-AI",
                                            "bf16");
      g_assert_false (c->ready);
      g_assert_nonnull (strstr (c->skip_reason, "Gemini's auto or CPU placement"));
    }
  /* HSDP with no group stated is one server's data-parallel ranks: 8 GPUs over tp x cp.
   * 64 H100s at tp 2: 8 / 2 = 4 ranks a group (dp 32; the 8 GPUs of a server hold 4 DP
   * ranks, 2 GPUs each), where 8 was read, two servers; at tp 1: 8. DeepSpeed's MiCS
   * (ZeRO-3 in groups of mics_shard_size, replicated across) is hybrid sharding, its
   * group from the text; FSDP's _HYBRID_SHARD_ZERO2 is read as HYBRID_SHARD, its "2" no
   * group size (it was a group of 2) */
  static const struct { const char *text; int tp; int group; } hd[] = {
    { "HYBRID_SHARD", 2, 4 },
    { "HSDP", 2, 4 },
    { "HSDP", 1, 8 },
    { "MiCS", 2, 4 },
    { "MiCS (mics_shard_size=16)", 1, 16 },
    { "_HYBRID_SHARD_ZERO2", 1, 8 },
    /* HSDP said in words (these were zero3): sharded within a node, replicated across
     * nodes -> one server's group; a stated N-GPU shard group -> N */
    { "FSDP sharded within each node, replicated across nodes", 1, 8 },
    { "FSDP sharded within each node, replicated across nodes", 2, 4 },
    { "FSDP (8-GPU shard groups, DDP across nodes)", 1, 8 },
    { "FSDP (4-GPU shard groups, DDP across nodes)", 1, 4 },
    { "FSDP sharded within each 8-GPU node, replicated across nodes", 1, 8 },
    /* SMP's sharded data parallelism with a degree below dp: groups of that many */
    { "sharded data parallel (SageMaker SMP, sharded_data_parallel_degree 16)", 1, 16 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (hd); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "zero_stage_or_fsdp,framework,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,64,16,1024,16,16384,1024,%d,1,\"%s\",PyTorch FSDP,256,1.0\n",
        hd[i].tp, hd[i].text);
      g_autoptr (ResPublishedCase) h = case_of (text);
      if (!h->ready || h->plan.sharding != PLAN_SHARD_HSDP || h->plan.hsdp_shard_size != hd[i].group)
        g_error ("'%s' at tp %d: sharding %d, group %d, expected hsdp with %d (%s)", hd[i].text,
                 hd[i].tp, h->plan.sharding, h->plan.hsdp_shard_size, hd[i].group,
                 h->skip_reason ? h->skip_reason : "");
    }
  /* ZeRO stage 1 or 2 within a node and replicated across is ZeRO-1/2 over a sub-group
   * (not modelled: over all of DP, as "zero1=4" reads), not HSDP, which shards the
   * parameters too (InternLM's "zero1=8" read as HSDP and was skipped) */
  static const char *const z1g[] = {
    "zero1=8 (InternLM Hybrid Zero: optimizer states sharded within each 8-GPU node, "
    "replicated across nodes)",
    "ZeRO-2 within each node, replicated across nodes" };
  /* (where the parameters are said sharded too it is HSDP: "ZeRO-2 in v1; now params, grads
   * and optimizer sharded within each node, replicated across nodes", audit of 7 Dec) */
  {
    g_autoptr (ResPublishedCase) z = case_of (
      "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
      "zero_stage_or_fsdp,framework,global_batch,step_time_s\n"
      "1,GPT,H100-SXM-80GB,64,16,1024,16,16384,1024,1,1,\"ZeRO-2 in v1; now params, grads "
      "and optimizer sharded within each node, replicated across nodes\",PyTorch FSDP,256,"
      "1.0\n");
    g_assert_true (z->ready);
    g_assert_cmpint (z->plan.sharding, ==, PLAN_SHARD_HSDP);
  }
  for (guint i = 0; i < G_N_ELEMENTS (z1g); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "zero_stage_or_fsdp,framework,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,64,16,1024,16,16384,1024,1,1,\"%s\",DeepSpeed,256,1.0\n", z1g[i]);
      g_autoptr (ResPublishedCase) z = case_of (text);
      if (!z->ready || z->plan.sharding != (i == 0 ? PLAN_SHARD_ZERO1 : PLAN_SHARD_ZERO2))
        g_error ("'%s': sharding %d (%s)", z1g[i], z->plan.sharding,
                 z->skip_reason ? z->skip_reason : "");
    }
  /* A shard group stated in GPUs ("parameters sharded across 128 GPUs"): ZeRO-3, FSDP or
   * MiCS over it is hybrid sharding with groups of that many GPUs, N / (tp x cp)
   * data-parallel ranks (the ZeRO-3 cell was zero3 over all 512; MiCS took one server's
   * 8). A group of all of DP ("across all 64 GPUs", or 64 of 64) is zero3; one that does
   * not divide dp, or splits a rank's tp x cp GPUs, is skipped, saying so. */
  static const struct { const char *text; int gpus, tp; PlanSharding want; int group;
                        const char *why; } sg[] = {
    { "ZeRO stage 3, parameters sharded across 128 GPUs, 4 copies", 512, 1, PLAN_SHARD_HSDP,
      128, NULL },
    { "MiCS: parameters sharded across 128 GPUs", 512, 1, PLAN_SHARD_HSDP, 128, NULL },
    { "MiCS: parameters sharded across 128 GPUs", 512, 2, PLAN_SHARD_HSDP, 64, NULL },
    { "ZeRO-3, parameters sharded over 16 GPUs", 64, 1, PLAN_SHARD_HSDP, 16, NULL },
    { "zero_optimization.stage=3, partitioned across 32 ranks", 64, 1, PLAN_SHARD_HSDP, 32,
      NULL },
    { "MiCS, sharded across 8 GPUs", 64, 4, PLAN_SHARD_HSDP, 2, NULL },
    { "FSDP, sharded across all 64 GPUs", 64, 1, PLAN_SHARD_ZERO3, 0, NULL },
    { "ZeRO-3 sharded across 64 GPUs", 64, 1, PLAN_SHARD_ZERO3, 64, NULL },
    { "MiCS, sharded across 12 GPUs", 64, 1, 0, 0, "shard group 12 does not divide dp 64" },
    { "MiCS, sharded across 6 GPUs", 64, 4, 0, 0,
      "a shard group of 6 GPUs does not hold whole data-parallel ranks of tp 4 x cp 1 GPUs" },
    /* only a number of the sharding phrase is a group: "TP within the 4 GPUs" (none, a
     * group of 1 rank at tp 4) and a duration "within 2 GPU-days" (hsdp of 2) are not */
    { "FSDP, TP within the 4 GPUs", 64, 4, PLAN_SHARD_ZERO3, 0, NULL },
    { "ZeRO-3 (trained within 2 GPU-days)", 64, 1, PLAN_SHARD_ZERO3, 0, NULL },
    { "ZeRO-3, sharded within 8 GPU-hours", 64, 1, PLAN_SHARD_ZERO3, 0, NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (sg); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "zero_stage_or_fsdp,framework,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,%d,16,1024,16,16384,1024,%d,1,\"%s\",DeepSpeed,%d,1.0\n",
        sg[i].gpus, sg[i].tp, sg[i].text, sg[i].gpus * 4);
      g_autoptr (ResPublishedCase) h = case_of (text);
      if (sg[i].why != NULL
          ? (h->ready || h->skip_reason == NULL || strstr (h->skip_reason, sg[i].why) == NULL)
          : (!h->ready || h->plan.sharding != sg[i].want
             || h->plan.hsdp_shard_size != sg[i].group))
        g_error ("'%s' on %d GPUs at tp %d: ready %d, sharding %d, group %d (%s)", sg[i].text,
                 sg[i].gpus, sg[i].tp, h->ready, h->plan.sharding, h->plan.hsdp_shard_size,
                 h->skip_reason ? h->skip_reason : "");
    }
  /* Under PP a group in GPUs counts model replicas of tp x cp x pp GPUs: 512 GPUs at tp 4,
   * pp 8 are all 16 DP ranks, zero3 (it was skipped, "shard group 128 does not divide dp
   * 16"); 256 of them are groups of 8 ranks; a group that splits a replica is skipped. */
  static const struct { const char *text; PlanSharding want; int group; } sp[] = {
    { "ZeRO-3, parameters sharded across 512 GPUs", PLAN_SHARD_ZERO3, 16 },
    { "ZeRO-3, parameters sharded across 1024 GPUs", PLAN_SHARD_ZERO3, 16 },
    { "ZeRO-3, parameters sharded across 256 GPUs", PLAN_SHARD_HSDP, 8 },
    { "ZeRO-3, parameters sharded across 16 GPUs", 0, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (sp); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "zero_stage_or_fsdp,framework,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,512,16,1024,16,16384,1024,4,8,\"%s\",torchtitan,2048,1.0\n",
        sp[i].text);
      g_autoptr (ResPublishedCase) h = case_of (text);
      if (sp[i].want == 0
          ? (h->ready || h->skip_reason == NULL
             || strstr (h->skip_reason, "tp 4 x cp 1 x pp 8 GPUs") == NULL)
          : (!h->ready || h->plan.sharding != sp[i].want
             || h->plan.hsdp_shard_size != sp[i].group))
        g_error ("'%s' on 512 GPUs at tp 4, pp 8: ready %d, sharding %d, group %d (%s)",
                 sp[i].text, h->ready, h->plan.sharding, h->plan.hsdp_shard_size,
                 h->skip_reason ? h->skip_reason : "");
    }
  /* torch's ZeroRedundancyOptimizer shards the optimizer states over DP: zero1 (it was not
   * recognised), the explain line saying its DDP all-reduce reads as the distributed
   * optimizer's traffic; "Zero Redundancy Optimizer" in words is ZeRO's name, no stage.
   * ZeRO-1 / ZeRO-2 over a stated sub-group (no plan has one) stay zero1 / zero2 over all
   * of DP, and the explain line says so; a group that is all of DP says nothing. 64 GPUs,
   * tp 1: dp 64. */
  static const struct { const char *text, *framework; PlanSharding want; const char *why; } zg[] = {
    { "torch ZeroRedundancyOptimizer", "PyTorch", PLAN_SHARD_ZERO1, "ZeroRedundancyOptimizer" },
    { "DDP + ZeroRedundancyOptimizer", "PyTorch", PLAN_SHARD_ZERO1, "ZeroRedundancyOptimizer" },
    /* ... said off, no sharding (these read zero1) */
    { "DDP (ZeroRedundancyOptimizer disabled)", "PyTorch", PLAN_SHARD_NONE, NULL },
    { "ZeroRedundancyOptimizer off", "PyTorch", PLAN_SHARD_NONE, NULL },
    { "ZeroRedundancyOptimizer: false", "PyTorch", PLAN_SHARD_NONE, NULL },
    { "ZeroRedundancyOptimizer (not used)", "PyTorch", PLAN_SHARD_NONE, NULL },
    { "no ZeroRedundancyOptimizer", "DeepSpeed", PLAN_SHARD_NONE, NULL },
    { "zero1=8 (within the 8 GPUs of a node)", "DeepSpeed", PLAN_SHARD_ZERO1,
      "ZeRO-1 over a sub-group is not modelled, read over all of DP" },
    { "zero1=8", "DeepSpeed", PLAN_SHARD_ZERO1,
      "ZeRO-1 over a sub-group is not modelled, read over all of DP" },
    { "ZeRO-2, sharded within the 8 GPUs of a node", "DeepSpeed", PLAN_SHARD_ZERO2,
      "ZeRO-2 over a sub-group is not modelled, read over all of DP" },
    { "zero1=64", "DeepSpeed", PLAN_SHARD_ZERO1, NULL },
    { "ZeRO-1, optimizer states sharded across 64 GPUs", "DeepSpeed", PLAN_SHARD_ZERO1, NULL },
    { "ZeRO-1", "DeepSpeed", PLAN_SHARD_ZERO1, NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (zg); i++)
    {
      g_autoptr (ResPublishedCase) z = row ("H100-SXM-80GB", 64, 1, zg[i].text, zg[i].framework,
                                            "bf16");
      if (!z->ready || z->plan.sharding != zg[i].want
          || (zg[i].why == NULL) != (z->sharding_why == NULL)
          || (zg[i].why != NULL && strstr (z->sharding_why, zg[i].why) == NULL))
        g_error ("'%s': ready %d, sharding %d, why '%s' (%s)", zg[i].text, z->ready,
                 z->plan.sharding, z->sharding_why ? z->sharding_why : "",
                 z->skip_reason ? z->skip_reason : "");
    }
  g_autoptr (ResPublishedCase) zro = row ("H100-SXM-80GB", 8, 1, "Zero Redundancy Optimizer",
                                          "PyTorch", "bf16");
  g_assert_false (zro->ready);
  g_assert_nonnull (strstr (zro->skip_reason, "names no ZeRO stage"));
  /* A stated group or replica count that does not divide dp (64 GPUs at tp 1: dp 64) is
   * skipped, naming it: "HSDP shard 3" and "HSDP 256" were zero3 over all 64 ranks, the
   * stated group dropped without a word. A stated group of 1 shards nothing: none, as
   * torchtitan's dp_shard=1 reads; a group of all 64 is FSDP over the whole of DP. */
  static const struct { const char *text; const char *why; PlanSharding want; int group; } hb[] = {
    { "HSDP shard 3", "'HSDP shard 3': shard group 3 does not divide dp 64", 0, 0 },
    { "HSDP 256", "'HSDP 256': shard group 256 does not divide dp 64", 0, 0 },
    { "HSDP, 3 replicas", "'HSDP, 3 replicas': 3 replicas do not divide dp 64", 0, 0 },
    { "HSDP shard 1", NULL, PLAN_SHARD_NONE, 0 },
    { "HSDP shard 64", NULL, PLAN_SHARD_ZERO3, 64 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (hb); i++)
    {
      g_autoptr (ResPublishedCase) h = row ("H100-SXM-80GB", 64, 1, hb[i].text, "torchtitan",
                                            "bf16");
      if (hb[i].why != NULL
          ? (h->ready || h->skip_reason == NULL || strstr (h->skip_reason, hb[i].why) == NULL)
          : (!h->ready || h->plan.sharding != hb[i].want
             || h->plan.hsdp_shard_size != hb[i].group))
        g_error ("'%s': ready %d, sharding %d, group %d (%s)", hb[i].text, h->ready,
                 h->plan.sharding, h->plan.hsdp_shard_size,
                 h->skip_reason ? h->skip_reason : "");
    }
  /* No group stated at tp 8: the documented default, one server's data-parallel ranks,
   * is 8 GPUs / (tp 8 x cp 1) = 1, which shards nothing; the row says it sharded, but
   * not over what: skipped, asking for the group (it was "hsdp, shard group 1"). 64 GPUs
   * at tp 8: dp 8. */
  g_autoptr (ResPublishedCase) h8 = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "zero_stage_or_fsdp,framework,global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,64,16,1024,16,16384,1024,8,1,HSDP,PyTorch FSDP,256,1.0\n");
  g_assert_false (h8->ready);
  g_assert_nonnull (strstr (h8->skip_reason, "zero_stage_or_fsdp 'HSDP' states no shard group, "
                            "and the default, one server's data-parallel ranks (8 GPUs / (tp 8 "
                            "x cp 1)), is 1, which shards nothing"));
  /* "ZeRO" without its stage: skipped, asking for it */
  g_autoptr (ResPublishedCase) zs = row ("H100-SXM-80GB", 8, 1, "ZeRO", "DeepSpeed", "bf16");
  g_assert_false (zs->ready);
  g_assert_nonnull (strstr (zs->skip_reason, "names no ZeRO stage"));
  /* ... also inside other words ("combined with ZeRO", the Falcon model cards; it was
   * "not recognised"): DeepSpeed's default stage is 0, ZeRO off, so no default applies
   * and the reason says what to write */
  g_autoptr (ResPublishedCase) zc = row ("A100-SXM-80GB", 8, 1, "combined with ZeRO",
                                         "DeepSpeed", "bf16");
  g_assert_false (zc->ready);
  g_assert_nonnull (strstr (zc->skip_reason, "'combined with ZeRO' names no ZeRO stage"));
  g_assert_nonnull (strstr (zc->skip_reason, "defaults to 0, ZeRO off"));
  g_assert_nonnull (strstr (zc->skip_reason, "hint: write the stage the run used"));
  g_autoptr (ResPublishedCase) bad = row ("H100-SXM-80GB", 8, 1, "sharded somehow", "", "bf16");
  g_assert_false (bad->ready);
  g_assert_nonnull (strstr (bad->skip_reason, "not recognised"));
}

/* A Megatron-LM row of 2021-22 (megatron-lm-2021) reads an empty sequence_parallel cell
 * as the stack's default, off: sequence parallelism is Korthikanti et al. 2022 (Megatron-
 * LM v3.0, --sequence-parallel store_true), which the SC'21 runs could not have used; a
 * Megatron-Core row with TP reads it on. A stated cell wins either way ("yes" on the 2022
 * rows of Korthikanti et al.). Its DP gradients are all-reduced after the backward (local
 * DDP: not overlapped), no sharding, no parameter gather; its pipeline exchanges wait
 * for the device in both schedules (2), where Megatron-Core's wait in the non-interleaved
 * 1F1B only (1); the plans leave it to the stack (-1) and the stack says which. 64 GPUs,
 * tp 2, pp 2 -> dp 16. */
static ResPublishedCase *
sp_row (const char *framework, const char *sp)
{
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "sequence_parallel,framework,precision,global_batch,step_time_s\n"
    "1,GPT,A100-SXM-80GB (Selene),64,16,1024,16,16384,1024,2,2,%s,\"%s\",fp16/bf16 mixed,"
    "256,1.0\n", sp, framework);
  return case_of (text);
}

static void
test_megatron_lm_2021 (void)
{
  static const struct { const char *fw, *sp; gboolean want_sp, overlap; int sync; } rows[] = {
    { "Megatron-LM (2021)", "", FALSE, FALSE, 2 },
    { "Megatron-LM PTD", "", FALSE, FALSE, 2 },
    { "Megatron-LM", "", FALSE, FALSE, 2 },
    { "Megatron-LM (2022)", "yes", TRUE, FALSE, 2 },
    { "Megatron-LM (2022)", "no", FALSE, FALSE, 2 },
    { "Megatron-Core r0.8.0", "", TRUE, TRUE, 1 },
    { "Megatron-Core r0.8.0", "no", FALSE, TRUE, 1 },
    /* the same name without its hyphen: the same rule */
    { "Megatron LM", "", FALSE, FALSE, 2 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = sp_row (rows[i].fw, rows[i].sp);
      if (!c->ready || c->plan.sequence_parallel != rows[i].want_sp
          || c->plan.overlap_grad_reduce != rows[i].overlap
          || (int) c->stack->pp_p2p_sync != rows[i].sync || c->plan.pp_p2p_sync != -1)
        g_error ("'%s' / sp '%s': sp %d, overlap %d, stack sync %d, plan sync %d (%s)",
                 rows[i].fw, rows[i].sp, c->plan.sequence_parallel, c->plan.overlap_grad_reduce,
                 (int) c->stack->pp_p2p_sync, c->plan.pp_p2p_sync,
                 c->skip_reason ? c->skip_reason : "");
      g_assert_false (c->plan.overlap_param_gather && rows[i].sync == 2);
      if (rows[i].sync == 2)
        g_assert_cmpint (c->plan.sharding, ==, PLAN_SHARD_NONE);
      /* attention: scores materialized in both Megatron-LM stacks' rows of the era (the
       * year rule, and the 2021 stack's own kernel for an undated "Megatron-LM") */
      if (rows[i].sync == 2)
        g_assert_cmpint (c->plan.attention_backend, ==, PLAN_ATTN_UNFUSED);
    }
}

/* DeepSpeed-Ulysses named in the sequence_parallel cell with its degree in the cp column
 * (the Megatron-DeepSpeed Ulysses example's table): context parallelism by all-to-all
 * (cp_comm a2a), no Megatron SP; without a cp degree it is skipped, the hint saying where
 * the degree goes. 32 GPUs, cp 4 -> dp 8. */
static void
test_ulysses_in_sp_cell (void)
{
  static const char *const cps[] = { "4", "" };
  for (guint i = 0; i < G_N_ELEMENTS (cps); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,cp,"
        "sequence_parallel,framework,precision,global_batch,step_time_s\n"
        "1,GPT,A100-SXM-80GB,32,16,2048,16,50257,32768,1,1,%s,"
        "DeepSpeed-Ulysses degree 4 (all-to-all head-parallel attention),"
        "Megatron-DeepSpeed + DeepSpeed-Ulysses,bf16,16,10.0\n", cps[i]);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (i == 0)
        {
          g_assert_true (c->ready);
          g_assert_cmpint (c->plan.cp, ==, 4);
          g_assert_cmpint (c->plan.cp_comm, ==, PLAN_CP_A2A);
          g_assert_false (c->plan.sequence_parallel);
          g_assert_cmpstr (c->stack->name, ==, "deepspeed");
        }
      else
        {
          g_assert_false (c->ready);
          g_assert_nonnull (strstr (c->skip_reason, "its degree in the cp column"));
        }
    }
  /* Ulysses said not to be the row's: Megatron's SP, cp by the stack's exchange */
  g_autoptr (ResPublishedCase) m = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,cp,"
    "sequence_parallel,framework,precision,global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,32,16,2048,16,50257,32768,2,1,2,"
    "yes (Megatron SP; not Ulysses),Megatron-Core,bf16,16,10.0\n");
  g_assert_true (m->ready);
  g_assert_true (m->plan.sequence_parallel);
  g_assert_cmpint (m->plan.cp_comm, !=, PLAN_CP_A2A);
}

/* A pipelined row that names no schedule, on a stack that offers GPipe and not 1F1B
 * (maxtext): the stack's GPipe (it was refused for 1F1B); on Megatron-Core, 1F1B */
static void
test_schedule_stack_default (void)
{
  static const struct { const char *fw; PlanSchedule want; } rows[] = {
    { "MaxText", PLAN_SCHED_GPIPE },
    { "Megatron-Core", PLAN_SCHED_1F1B },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "framework,precision,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,64,32,4096,32,32000,4096,8,4,%s,bf16,128,20.0\n", rows[i].fw);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (!c->ready)
        g_error ("%s: %s", rows[i].fw, c->skip_reason);
      g_assert_cmpint (c->plan.schedule, ==, rows[i].want);
    }
}

/* A bare "Megatron-LM" on a device with FP8 tensor cores (none in systems before late
 * 2022; Megatron-LM had no FP8 before Transformer Engine, 2023) is the Megatron-Core era's:
 * megatron-core, and the explain line says why; on an A100 it stays megatron-lm-2021. A
 * framework no rule names gets the default stack, and the explain line says so. */
static void
test_megatron_lm_device (void)
{
  static const struct { const char *gpu, *fw, *stack, *why; } rows[] = {
    { "A100-SXM-80GB", "Megatron-LM", "megatron-lm-2021", NULL },
    { "H100-SXM-80GB", "Megatron-LM", "megatron-core", "FP8 tensor cores" },
    { "B200-SXM-180GB", "Megatron-LM", "megatron-core", "FP8 tensor cores" },
    { "MI300X", "Megatron LM", "megatron-core", "FP8 tensor cores" },
    { "H100-SXM-80GB", "Megatron-LM (2021)", "megatron-lm-2021", NULL },
    { "H100-SXM-80GB", "Nanotron", "megatron-core", "not recognised" },
    /* llm-foundry by its name with a space (the default stack, not recognised, before) */
    { "A100-SXM-80GB", "LLM Foundry", "llm-foundry", NULL },
    { "A100-SXM-80GB", "MosaicML Composer", "llm-foundry", NULL },
    /* FSDP2 with DTensor TP or PyTorch's pipelining is torchtitan's composition; FSDP
     * alone stays plain FSDP */
    { "H100-SXM-80GB", "KempnerForge (PyTorch FSDP2 + DTensor TP + torch.distributed."
      "pipelining)", "torchtitan", NULL },
    { "H100-SXM-80GB", "KempnerForge (PyTorch FSDP2 + DTensor TP, torch.compile)",
      "torchtitan", NULL },
    { "H100-SXM-80GB", "OLMo-core (PyTorch FSDP2/HSDP, torch.compile)", "pytorch-fsdp", NULL },
    { "H100-SXM-80GB", "PyTorch FSDP2 (no DTensor TP)", "pytorch-fsdp", NULL },
    { "H100-SXM-80GB", "", "megatron-core", NULL },
    /* a table's dash says nothing: the default, not "not recognised" */
    { "H100-SXM-80GB", "\xe2\x80\x94", "megatron-core", NULL },
    { "H100-SXM-80GB", "N.A.", "megatron-core", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = row (rows[i].gpu, 8, 1, "", rows[i].fw, "bf16");
      g_assert_nonnull (c->stack);
      if (g_strcmp0 (c->stack->name, rows[i].stack) != 0
          || (rows[i].why == NULL) != (c->stack_why == NULL)
          || (rows[i].why != NULL && strstr (c->stack_why, rows[i].why) == NULL))
        g_error ("'%s' on %s: stack %s (%s), expected %s", rows[i].fw, rows[i].gpu,
                 c->stack->name, c->stack_why ? c->stack_why : "", rows[i].stack);
    }
}

/* A Megatron-LM row that ran the distributed optimizer (megatron/optimizer/
 * distrib_optimizer.py, --use-distributed-optimizer: late 2022) is the Megatron-Core
 * era's: megatron-core, zero1, the explain line saying why. These were the 2021 stack,
 * then skipped ("--sharding zero1: the megatron-lm-2021 stack does not offer it"). A
 * YY.MM version from 23 ("v23.08") or a core_r0.x is megatron-core by the framework text
 * alone. The SC'21-era rows (bare or dated cell, empty or "none (Megatron DDP)" sharding)
 * keep megatron-lm-2021 and none; a cell dated 2021 keeps its stack with the distributed
 * optimizer, whose refusal says why. On A100s (no FP8: the device rule above stays out). */
static void
test_megatron_lm_distopt (void)
{
  static const struct { const char *fw, *shard, *notes, *stack, *why; PlanSharding want; } rows[] = {
    { "Megatron-LM", "distributed optimizer", "", "megatron-core", "distributed optimizer",
      PLAN_SHARD_ZERO1 },
    { "NVIDIA Megatron-LM", "distributed optimizer", "", "megatron-core",
      "distributed optimizer", PLAN_SHARD_ZERO1 },
    { "MegaScale (Megatron-LM based)", "distributed optimizer", "", "megatron-core",
      "distributed optimizer", PLAN_SHARD_ZERO1 },
    { "Megatron-LM", "--use-distributed-optimizer", "", "megatron-core",
      "distributed optimizer", PLAN_SHARD_ZERO1 },
    { "Megatron LM", "DistOpt", "", "megatron-core", "distributed optimizer", PLAN_SHARD_ZERO1 },
    { "Megatron-LM (2022)", "distributed optimizer", "", "megatron-core",
      "distributed optimizer", PLAN_SHARD_ZERO1 },
    /* an empty cell beside notes that quote the option (or --overlap-param-gather, which
     * exists only with it) */
    { "Megatron-LM", "", "ran with --use-distributed-optimizer --overlap-grad-reduce",
      "megatron-core", "distributed optimizer", PLAN_SHARD_ZERO1 },
    { "Megatron-LM", "", "--overlap-param-gather", "megatron-core", "distributed optimizer",
      PLAN_SHARD_ZERO1 },
    /* a version of 2023 on: megatron-core by the framework text (no explain note) */
    { "Megatron-LM v23.08", "distributed optimizer", "", "megatron-core", NULL,
      PLAN_SHARD_ZERO1 },
    { "Megatron-LM v23.08", "", "", "megatron-core", NULL, PLAN_SHARD_ZERO1 },
    { "Megatron-LM 24.01", "", "", "megatron-core", NULL, PLAN_SHARD_ZERO1 },
    { "Megatron-LM core_r0.5", "distributed optimizer", "", "megatron-core", NULL,
      PLAN_SHARD_ZERO1 },
    /* the 2021-22 rows keep their stack */
    { "Megatron-LM", "", "", "megatron-lm-2021", NULL, PLAN_SHARD_NONE },
    { "Megatron-LM (2021)", "", "", "megatron-lm-2021", NULL, PLAN_SHARD_NONE },
    { "Megatron-LM PTD", "none (Megatron DDP)", "", "megatron-lm-2021", NULL, PLAN_SHARD_NONE },
    { "Megatron-LM (2022)", "", "", "megatron-lm-2021", NULL, PLAN_SHARD_NONE },
    { "Megatron-LM", "no distributed optimizer", "", "megatron-lm-2021", NULL,
      PLAN_SHARD_NONE },
    { "Megatron-LM", "none", "--overlap-param-gather", "megatron-lm-2021", NULL,
      PLAN_SHARD_NONE },
    /* the option said off, in the notes or the cell, names no distributed optimizer (these
     * moved the row to megatron-core, zero1) */
    { "NVIDIA Megatron-LM", "", "run without --use-distributed-optimizer", "megatron-lm-2021",
      NULL, PLAN_SHARD_NONE },
    { "NVIDIA Megatron-LM", "", "no --overlap-param-gather", "megatron-lm-2021", NULL,
      PLAN_SHARD_NONE },
    { "NVIDIA Megatron-LM", "DDP, not using the distributed optimizer", "", "megatron-lm-2021",
      NULL, PLAN_SHARD_NONE },
    { "NVIDIA Megatron-LM", "none (predates the distributed optimizer)", "", "megatron-lm-2021",
      NULL, PLAN_SHARD_NONE },
    { "Megatron-LM", "", "--use-distributed-optimizer, no --overlap-param-gather",
      "megatron-core", "distributed optimizer", PLAN_SHARD_ZERO1 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "zero_stage_or_fsdp,framework,global_batch,step_time_s,notes\n"
        "1,GPT,A100-SXM-80GB,16,16,1024,16,16384,1024,1,1,\"%s\",\"%s\",64,1.0,\"%s\"\n",
        rows[i].shard, rows[i].fw, rows[i].notes);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (!c->ready || g_strcmp0 (c->stack->name, rows[i].stack) != 0
          || c->plan.sharding != rows[i].want
          || (rows[i].why == NULL) != (c->stack_why == NULL)
          || (rows[i].why != NULL && strstr (c->stack_why, rows[i].why) == NULL))
        g_error ("'%s' / '%s' / '%s': ready %d, stack %s (%s), sharding %d (%s)", rows[i].fw,
                 rows[i].shard, rows[i].notes, c->ready, c->stack ? c->stack->name : "",
                 c->stack_why ? c->stack_why : "", c->plan.sharding,
                 c->skip_reason ? c->skip_reason : "");
    }
  g_autoptr (ResPublishedCase) old = row ("A100-SXM-80GB", 16, 1, "distributed optimizer",
                                          "Megatron-LM (2021)", "bf16");
  g_assert_false (old->ready);
  g_assert_cmpstr (old->stack->name, ==, "megatron-lm-2021");
  g_assert_nonnull (strstr (old->skip_reason, "the megatron-lm-2021 stack does not offer it"));
}

static void
test_precision (void)
{
  static const struct { const char *text; gboolean fp8, fp8_attn; } rows[] = {
    { "bf16", FALSE, FALSE },
    { "amp_bf16", FALSE, FALSE },
    { "fp16/bf16 mixed", FALSE, FALSE },
    { "fp8 (Transformer Engine)", TRUE, FALSE },
    { "FP8-hybrid", TRUE, FALSE },
    { "float8 (torchao, tensorwise)", TRUE, FALSE },
    { "amp_fp8", TRUE, FALSE },
    { "fp8 with fp8_dpa", TRUE, TRUE },
    { "FP8, FP8 attention", TRUE, TRUE },
    /* FP8 named only to say it was off: bf16 (was read as fp8) */
    { "BF16 (no FP8)", FALSE, FALSE },
    /* what is said of FP8 attention says nothing of the GEMMs, and an FP8 attention said
     * to be off is off */
    { "fp8 (no fp8 attention)", TRUE, FALSE },
    { "FP8, fp8_dpa=False", TRUE, FALSE },
    /* E5M2 is an FP8 format */
    { "E5M2", TRUE, FALSE },
    { "bf16, without fp8", FALSE, FALSE },
    { "fp8: off", FALSE, FALSE },
    /* a 16-bit type named beside fp32 (master weights, accumulation): bf16 */
    { "bf16 (FP32 grad accumulation and FP32 reduce-scatter)", FALSE, FALSE },
    { "mixed precision (fp32 master weights)", FALSE, FALSE },
    /* FP8 by its description, and FP8 attention said as "incl. attention" */
    { "8-bit floating point", TRUE, FALSE },
    { "FP8 (incl. attention)", TRUE, TRUE },
    { "fp8, including attention", TRUE, TRUE },
    /* 16-bit by its width; unstated (a dash, "N.A."): bf16, the documented default;
     * fp16's dynamic loss scaling is no FP8 recipe */
    { "16-bit mixed", FALSE, FALSE },
    { "bfloat 16", FALSE, FALSE },
    { "FP 16", FALSE, FALSE },
    { "FP 8", TRUE, FALSE },
    { "\xe2\x80\x94", FALSE, FALSE },
    { "N.A.", FALSE, FALSE },
    { "fp16 weights, dynamic loss scaling", FALSE, FALSE },
    /* FP8 said unused (read as fp8) */
    { "FP8 (not used)", FALSE, FALSE },
    { "bf16, fp8 unused", FALSE, FALSE },
    /* MXFP8 said off names no FP8 that ran: bf16, the default */
    { "MXFP8 off", FALSE, FALSE },
    /* FP8 said off in other words (each was read as FP8 GEMMs, and skipped on A100 as
     * "has no FP8 tensor cores"): bf16; what the clause says of something else after a
     * plain comma stays its own ("fp8, fused attention disabled" is FP8) */
    { "BF16 (FP8 not enabled)", FALSE, FALSE },
    { "bf16; FP8 was not used", FALSE, FALSE },
    { "FP8 (off)", FALSE, FALSE },
    { "FP8=no, bf16", FALSE, FALSE },
    { "bf16 (fp8 planned, not used in this run)", FALSE, FALSE },
    { "fp8, fused attention disabled", TRUE, FALSE },
    /* a negation about one part of the model (attention, the output layer, wgrad) says
     * nothing of the GEMMs: FP8 (each read as bf16 for a while, some for longer) */
    { "fp8 (not used for attention)", TRUE, FALSE },
    { "no FP8 for attention; FP8 GEMMs", TRUE, FALSE },
    { "bf16 with FP8 GEMMs (attention kept in bf16, not FP8)", TRUE, FALSE },
    { "fp8 (delayed scaling; the output layer is not FP8)", TRUE, FALSE },
    { "FP8 disabled (attention issues)", FALSE, FALSE },
    /* where nothing outside the part names FP8, the negation is the cell's: bf16 */
    { "bf16 (no FP8, not even for attention)", FALSE, FALSE },
    { "bf16 (FP8 disabled in normal runs)", FALSE, FALSE },
    { "BF16 without FP8 for the embedding or any other layer", FALSE, FALSE },
    { "fp8 e4m3 fwd / e5m2 bwd", TRUE, FALSE },
    /* "w/o" says FP8 off, and "not" FP8 attention (read as FP8, and FP8 attention) */
    { "BF16 mixed precision w/o FP8", FALSE, FALSE },
    { "FP8 (not FP8 attention)", TRUE, FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = row ("H100-SXM-80GB", 8, 1, "", "", rows[i].text);
      g_assert_true (c->ready);
      g_assert_cmpint (c->plan.compute_dtype == PLAN_PREC_FP8, ==, rows[i].fp8);
      g_assert_cmpint (c->fp8_attention, ==, rows[i].fp8_attn);
    }
  /* NVFP4 / fp4: FP4 GEMMs on Blackwell (TE's NVFP4 recipe), attention bf16, whatever
   * the spelling ("NVFP4", "nvfp4 (NVFP4 recipe)", "fp4", "FP4 (NVFP4)", "bf16 with
   * NVFP4 GEMMs": a row naming fp4 anywhere ran its GEMMs in FP4); a device without FP4
   * skips */
  static const char *const fp4_gpus[] = { "B200-SXM-180GB", "GB200 NVL72", "GB300 NVL72" };
  static const char *const fp4_texts[] = { "NVFP4", "nvfp4 (NVFP4 recipe)", "fp4", "FP4 (NVFP4)",
                                           "bf16 with NVFP4 GEMMs" };
  for (guint i = 0; i < G_N_ELEMENTS (fp4_gpus) * G_N_ELEMENTS (fp4_texts); i++)
    {
      const char *gpu = fp4_gpus[i % G_N_ELEMENTS (fp4_gpus)];
      g_autoptr (ResPublishedCase) fp4 = row (gpu, 72, 1, "", "",
                                              fp4_texts[i / G_N_ELEMENTS (fp4_gpus)]);
      if (!fp4->ready)
        g_error ("%s: %s", gpu, fp4->skip_reason);
      g_assert_true (fp4->fp4);
      g_assert_cmpint (fp4->plan.compute_dtype, ==, PLAN_PREC_FP4);
      g_assert_false (fp4->fp8_attention);
    }
  /* an FP4 that is the checkpoint's format (gpt-oss ships MXFP4 expert weights): the
   * training's bf16, on Hopper too (it was skipped there for want of FP4 tensor cores) */
  static const char *const stored_fp4[] = { "bf16 (MXFP4 checkpoint upcast)",
                                            "bf16; weights dequantized from MXFP4" };
  for (guint i = 0; i < G_N_ELEMENTS (stored_fp4); i++)
    {
      g_autoptr (ResPublishedCase) st = row ("H100-SXM-80GB", 8, 1, "", "", stored_fp4[i]);
      if (!st->ready)
        g_error ("%s: %s", stored_fp4[i], st->skip_reason);
      g_assert_false (st->fp4);
      g_assert_cmpint (st->plan.compute_dtype, ==, PLAN_PREC_BF16);
    }
  /* The recipe a row names (its quantization bytes and, for MXFP8, the block-scaled GEMM
   * rate: sim_cost_options_apply_plan): "current scaling" / "FP8-CS" / "tensorwise" ->
   * tensorwise (also "fp8cs", "fp8_cs", "tensor-wise"), "MXFP8" / "FP8-MX" / "fp8mx" /
   * "fp8_mx" / "1x32" / "microscaling" / "MX block" -> mxfp8 on a device with MXFP8
   * GEMMs (Blackwell), before the block rules ("1x32 block scaling" is MX); "FP8-SC",
   * "fp8sc", "fp8_sc", "sub-channel", "subchannel", "blockwise", "block-wise", "block
   * scaling", "block-scaled", "1x128", "128x128", "DeepSeek" -> blockwise (Hopper and
   * Blackwell);
   * "rowwise", "row-wise", "per-row" -> rowwise; "delayed" -> delayed; none named: the
   * stack's (-1). */
  static const struct { const char *gpu, *text; int recipe; } recipes[] = {
    { "H100-SXM-80GB", "fp8", -1 },
    { "H100-SXM-80GB", "fp8 (FP8-CS: per-tensor current scaling)", FW_SCALING_CURRENT },
    { "B200-SXM-180GB", "float8 (torchao, tensorwise)", FW_SCALING_CURRENT },
    { "B200-SXM-180GB", "fp8 (MXFP8: FP8-MX, 1x32 block scaling)", FW_SCALING_BLOCK },
    { "GB300 NVL72", "MXFP8", FW_SCALING_BLOCK },
    { "GB200 NVL72", "FP8-MX", FW_SCALING_BLOCK },
    { "H100-SXM-80GB", "FP8 (delayed scaling)", FW_SCALING_DELAYED },
    { "B200-SXM-180GB", "fp8 (1x32 blocks)", FW_SCALING_BLOCK },
    { "B200-SXM-180GB", "fp8mx", FW_SCALING_BLOCK },
    { "GB200 NVL72", "fp8_mx", FW_SCALING_BLOCK },
    { "GB200 NVL72", "FP8 (microscaling)", FW_SCALING_BLOCK },
    { "GB300 NVL72", "fp8, MX block scaling", FW_SCALING_BLOCK },
    { "H100-SXM-80GB", "fp8sc", FW_SCALING_BLOCKWISE },
    { "H100-SXM-80GB", "fp8_sc", FW_SCALING_BLOCKWISE },
    { "H100-SXM-80GB", "fp8cs", FW_SCALING_CURRENT },
    { "H100-SXM-80GB", "fp8_cs", FW_SCALING_CURRENT },
    { "H100-SXM-80GB", "float8 tensor-wise", FW_SCALING_CURRENT },
    { "H100-SXM-80GB", "fp8 (FP8-SC: blockwise 1x128/128x128 scaling)", FW_SCALING_BLOCKWISE },
    { "H100-SXM-80GB", "FP8 sub-channel scaling", FW_SCALING_BLOCKWISE },
    { "H100-SXM-80GB", "fp8 subchannel", FW_SCALING_BLOCKWISE },
    { "H100-SXM-80GB", "FP8 blockwise", FW_SCALING_BLOCKWISE },
    { "H100-SXM-80GB", "fp8 block-wise", FW_SCALING_BLOCKWISE },
    { "H100-SXM-80GB", "fp8 (DeepSeek-style block scaling)", FW_SCALING_BLOCKWISE },
    { "H100-SXM-80GB", "fp8 block-scaled GEMMs", FW_SCALING_BLOCKWISE },
    { "H800-SXM-80GB", "fp8 (DeepSeek's FP8 recipe: 1x128 activation tiles, 128x128 weight "
                       "blocks)", FW_SCALING_BLOCKWISE },
    { "H100-SXM-80GB", "fp8 (128x128 weights)", FW_SCALING_BLOCKWISE },
    { "B200-SXM-180GB", "FP8 blockwise", FW_SCALING_BLOCKWISE },
    { "H100-SXM-80GB", "fp8 rowwise", FW_SCALING_ROWWISE },
    { "H100-SXM-80GB", "float8 rowwise (torchao)", FW_SCALING_ROWWISE },
    { "H100-SXM-80GB", "float8 row-wise", FW_SCALING_ROWWISE },
    { "H100-SXM-80GB", "fp8 per-row scaling", FW_SCALING_ROWWISE },
    /* current scaling hyphenated; torchao's "dynamic" scaling is current scaling (its
     * tensorwise recipe: "tensorwise dynamic scaling", rows 839-840); MXFP8 as "FP8 MX" /
     * "MX-FP8" (these read as the stack's recipe) */
    { "H100-SXM-80GB", "fp8 current-scaling", FW_SCALING_CURRENT },
    /* NVIDIA's summaries' own wording for FP8-CS */
    { "GB200 NVL72", "FP8 (per-tensor quantization, scaling factors computed in the current "
                     "step)", FW_SCALING_CURRENT },
    { "H100-SXM-80GB", "fp8 (per-tensor current)", FW_SCALING_CURRENT },
    { "H100-SXM-80GB", "FP8 dynamic scaling", FW_SCALING_CURRENT },
    { "H100-SXM-80GB", "float8 dynamic", FW_SCALING_CURRENT },
    { "H100-SXM-80GB", "FP8 (delayed scaling, not dynamic)", FW_SCALING_DELAYED },
    { "B200-SXM-180GB", "FP8 MX", FW_SCALING_BLOCK },
    { "GB200 NVL72", "MX-FP8", FW_SCALING_BLOCK },
    /* NeMo's performance-script codes (--fp8_recipe ds / cs / mxfp8 / ss: delayed,
     * current, MXFP8, sub-channel) in brackets or joined to fp8, and Megatron-Bridge's
     * in brackets: each names its recipe (DS / MX / SC in brackets read as the stack's) */
    { "H100-SXM-80GB", "fp8_ds", FW_SCALING_DELAYED },
    { "GB200 NVL72", "FP8-DS", FW_SCALING_DELAYED },
    { "H100-SXM-80GB", "FP8 (DS)", FW_SCALING_DELAYED },
    { "H100-SXM-80GB", "FP8 (CS)", FW_SCALING_CURRENT },
    { "B200-SXM-180GB", "fp8 (mx)", FW_SCALING_BLOCK },
    { "H100-SXM-80GB", "FP8 (SC)", FW_SCALING_BLOCKWISE },
    { "H100-SXM-80GB", "fp8_ss", FW_SCALING_BLOCKWISE },
    /* a recipe named only to say it was not used (mention_off: "not KEY", "no KEY", "KEY
     * off") is no recipe of the row: "fp8 (not MXFP8)" names none, the stack's (-1; it
     * was mxfp8); "no mxfp8, fp8 delayed" is delayed (it was mxfp8); "MXFP8 off; fp8
     * current scaling" is fp8 with tensorwise scaling (its "fp8 off" inside "MXFP8 off"
     * read as FP8 said off: bf16) */
    { "B200-SXM-180GB", "fp8 (not MXFP8)", -1 },
    { "B200-SXM-180GB", "no mxfp8, fp8 delayed", FW_SCALING_DELAYED },
    { "B200-SXM-180GB", "MXFP8 off; fp8 current scaling", FW_SCALING_CURRENT },
    { "B200-SXM-180GB", "fp8, delayed scaling (not blockwise)", FW_SCALING_DELAYED },
  };
  for (guint i = 0; i < G_N_ELEMENTS (recipes); i++)
    {
      /* rowwise scaling is torchao's: on torchtitan (megatron-core, the default stack,
       * has no such recipe and refuses it, as predict does) */
      g_autoptr (ResPublishedCase) c = row (recipes[i].gpu, 8, 1, "",
                                            recipes[i].recipe == FW_SCALING_ROWWISE
                                              ? "torchtitan" : "", recipes[i].text);
      if (!c->ready)
        g_error ("%s / %s: %s", recipes[i].gpu, recipes[i].text, c->skip_reason);
      g_assert_cmpint (c->plan.compute_dtype, ==, PLAN_PREC_FP8);
      g_assert_cmpint (c->plan.fp8_recipe, ==, recipes[i].recipe);
    }
  /* no 16-, 8- or 4-bit float named: a 32-bit run (TF32 or FP32 GEMMs) or an INT8 one,
   * neither of which is bf16 (both were read as bf16): skipped, saying which */
  static const struct { const char *text, *why; } wide[] = {
    { "fp32", "32-bit training" },
    { "TF32", "32-bit training" },
    { "float32", "32-bit training" },
    { "int8", "INT8" },
    /* a cell naming no number format at all is not read as bf16 (it was) */
    { "FP6", "not recognised" },
    { "quantized", "not recognised" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (wide); i++)
    {
      g_autoptr (ResPublishedCase) c = row ("H100-SXM-80GB", 8, 1, "", "", wide[i].text);
      g_assert_false (c->ready);
      g_assert_nonnull (strstr (c->skip_reason, wide[i].why));
    }
  g_autoptr (ResPublishedCase) mxh = row ("H100-SXM-80GB", 8, 1, "", "", "MXFP8");
  g_assert_false (mxh->ready);
  g_assert_cmpstr (mxh->skip_reason, ==, "precision 'MXFP8': H100-SXM5-80GB has no MXFP8 "
                   "block-scaled GEMMs");
  g_autoptr (ResPublishedCase) fp4h = row ("H100-SXM-80GB", 8, 1, "", "", "fp4");
  g_assert_false (fp4h->ready);
  g_assert_cmpstr (fp4h->skip_reason, ==, "precision 'fp4': H100-SXM5-80GB has no FP4 tensor "
                   "cores");
}

/* The stack's defaults fill what a row does not say: NeMo overlaps TP communication and
 * reduces gradients in bf16; DeepSpeed's fork has no sequence parallelism and runs
 * attention unfused. */
/* Step times in every unit people write, and numbers joined to a second one (an audit
 * of 6 Dec: "1.5 h" and "500 us" were read as 1.5 and 500 s, "0.45-0.60" as 0.45 s, "48 x
 * 4" as a batch of 48, "2^12" as a length of 2, "3.2 thousand" tokens/s as 3.2; and
 * "1.5K" sequences was skipped as "missing") */
/* An MI250X module is two GCDs, the devices: an n_gpus cell that counts modules is
 * doubled ("4 nodes x 4 MI250X" was 16 devices, where it is 32); a bare number is taken
 * as written, GCDs */
static void
test_mi250x_gcds (void)
{
  static const struct { const char *gpu, *n; gint64 want; } rows[] = {
    { "MI250X (GCD)", "4 nodes x 4 MI250X", 32 },
    { "AMD MI250X", "2 nodes x 8 MI250X", 32 },
    { "MI250X (GCD)", "32", 32 },
    /* "GCDs" in a bracket glosses the modules: still 2 a module (it read 32) */
    { "AMD MI250X", "8 nodes x 4 MI250X (8 GCDs per node)", 64 },
    /* a bracket that is the count's unit: GCDs, not doubled */
    { "MI250X", "32 (MI250X GCDs)", 32 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "global_batch,step_time_s\n"
        "1,GPT,\"%s\",\"%s\",16,1024,16,16384,1024,1,1,64,1.0\n", rows[i].gpu, rows[i].n);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (!c->ready || c->n_gpus != rows[i].want)
        g_error ("'%s' / '%s': %" G_GINT64_FORMAT " devices, expected %" G_GINT64_FORMAT
                 " (%s)", rows[i].gpu, rows[i].n, c->n_gpus, rows[i].want,
                 c->skip_reason ? c->skip_reason : "");
    }
}

/* The scale-out bandwidth a network cell states (res_pub_network_gbps_per_gpu), in Gb/s a
 * GPU, nodes of 8 GPUs unless the row says 16 */
static void
test_network_bandwidth (void)
{
  static const struct { const char *cell; guint64 node; double want; } cells[] = {
    { "InfiniBand 8x400 Gb/s", 8, 400 },            /* 8 NICs: the node's 3,200 */
    { "1600 Gbps node-node RoCE", 8, 200 },          /* MosaicML's cluster */
    { "AWS EFA 400 Gbps per node (4x100G)", 8, 50 },  /* p4d: a quarter of Selene's */
    { "RoCE v2, 2x 100 Gbps per node", 8, 25 },
    { "8x H200 per host on NVLink; RDMA 400 Gb/s (Mellanox CX-7) per GPU", 8, 400 },
    { "InfiniBand 8x50 GB/s per node (8x400 Gb/s), NVLink 4", 8, 400 },  /* bytes: x 8 */
    { "800 Gbps InfiniBand per DGX-2 node", 16, 50 },
    { "3.2 Tbps EFA per instance", 8, 400 },         /* p5 */
    { "InfiniBand 400 Gb/s per GPU (8 NICs per node); H800 NVLink 400 GB/s", 8, 400 },
    { "1,600 Gbps per node", 8, 200 },              /* a thousands comma, not a clause */
    /* a NIC count with the NIC's name between ("8x NDR 400 Gb/s", "8x ConnectX-7 400
     * Gb/s": read as one 400 Gb/s a node, 8 times too slow), one NIC a GPU whatever the
     * count ("8 x 400 Gb/s (one per GPU)": read as 8 x 400 a GPU), two NICs a GPU, and
     * the scale-out half of a clause that joins two fabrics with "and" */
    { "8x NDR 400 Gb/s InfiniBand per node", 8, 400 },
    { "8x ConnectX-7 400 Gb/s per node", 8, 400 },
    { "8 x 400 Gb/s InfiniBand (one per GPU)", 8, 400 },
    { "2 x 200 Gb/s per GPU", 8, 400 },
    { "NVLink 4 at 900 GB/s per GPU and 400 Gb/s NDR per node", 8, 50 },
    /* a count of GPUs is no NIC count */
    { "4x A100 with 200 Gb/s per GPU", 8, 200 },
    /* Ethernet's GbE is Gb/s */
    { "400 GbE per node", 8, 50 },
    /* the NIC count after the figure, or with "NICs" before the x */
    { "NDR 400 Gb/s x 8 per node", 8, 400 },
    { "8 NICs x 400 Gb/s", 8, 400 },
    /* a count before the figure with only the NICs' make between, the NICs named after
     * it (Nemotron-4's report; read as one 400 Gb/s a node: 50 a GPU) */
    { "8 NVIDIA Mellanox 400 Gbps HDR InfiniBand HCAs per node", 8, 400 },
    { "8 ConnectX-7 400G NICs per node", 8, 400 },
    /* ... a count spelled in words (MegaScale's "eight 200G NICs per server": the count
     * was dropped, 200 read as the server's, 25 Gb/s a GPU) */
    { "eight 200G NICs per server, multi-rail to eight different ToR switches", 8, 200 },
    { "Four 400 Gb/s HCAs per node", 8, 200 },
    /* ... and a NIC's model number is no count, after the figure or before it */
    { "eight 400 Gb/s ConnectX-7 NICs per node", 8, 400 },
    /* (NICs in the plural with no count: each NIC's rate, one a GPU; the node's 50 Gb/s a
     * GPU before) */
    { "400 Gb/s ConnectX-7 NICs per node", 8, 400 },
    { "400 Gb/s ConnectX-7 NICs (8 per node)", 8, 400 },
    /* ... not a spelled count of something else */
    { "eight GPUs with 400 Gb/s per node", 8, 50 },
    /* ... and no count where the number is of something else or no NICs follow */
    { "2 racks, 400 Gb/s per node", 8, 50 },
    { "8 H100 GPUs with 400 Gb/s per node", 8, 50 },
    /* ... nor a count of nodes, GPUs or racks before a figure with the NICs after it (a
     * rule that allowed any words between took 16 NICs a node: 3,200 a GPU; and 2: 50) */
    { "16 DGX A100 nodes with 200 Gb/s HDR InfiniBand HCAs", 8, 0 },
    { "2 DGX nodes interconnected with 400 Gbps InfiniBand ports", 8, 0 },
    { "64 A100 GPUs connected by 200 Gbps HDR InfiniBand adapters", 8, 0 },
    /* port-speed shorthands: "400G", an InfiniBand generation with or without its rate,
     * a NIC count a node after the figure; a figure above any one NIC's 800 Gb/s with no
     * scope is a node's (AWS p5: 3,200 Gb/s an instance of 8) */
    { "2x 400G per node", 8, 100 },
    { "InfiniBand NDR400 (8 per node)", 8, 400 },
    { "HDR InfiniBand (8 per node)", 8, 200 },
    { "InfiniBand HDR100, 4 HCAs per node", 4, 100 },
    /* the count in words in the next clause, make and model between (nics_per_node_in_words):
     * DLPerf's V100 cluster, one 100 Gb/s HCA a node of 8 = 12.5 Gb/s a GPU (it read
     * nothing, the preset's 4 x EDR: 50) */
    { "InfiniBand 100 Gb/s (4X EDR), one Mellanox MT27700 HCA (mlx5_0) per node; intra-node "
      "NVLink (V100 hybrid cube-mesh per nvidia-smi topo)", 8, 12.5 },
    { "RoCE 100 Gb/s, two ConnectX-5 NICs per server", 8, 25 },
    { "RoCE 200 Gb/s (4 NICs per server)", 8, 100 },
    { "EFA v2 3200 Gbps", 8, 400 },
    { "400 Gb/s per GPU (8 per node)", 8, 400 },
    { "200 Gb/s per GPU, 4 per node", 8, 200 },
    /* "inter-node" / "inter-machine" scope a node's figure as "node-node" does; "100Gb"
     * is Gb/s; "4 * 100" a count (IBM's and InternLM's clusters) */
    { "800 Gbps inter-node interconnect", 8, 100 },
    { "4 * 100Gb RoCE inter-machine", 8, 50 },
    { "4x100Gb RoCE per node", 8, 50 },
    /* a GPU scope anywhere in the cell wins over "inter-node" / "between nodes"; a
     * generation alone with only such a scope says no NIC count; a memory size or an
     * NVLink / HBM figure in bytes is no NIC (the audit of this round's readers) */
    { "400 Gb/s inter-node per GPU", 8, 400 },
    { "InfiniBand 400 Gb/s between nodes, one NIC per GPU", 8, 400 },
    { "InfiniBand 200 Gb/s between nodes, one NIC per GPU", 8, 200 },
    { "NVLink 900 GB/s per GPU; IB 200 Gb/s between nodes", 8, 25 },
    { "HDR 200 inter-node; DGX A100, 8 GPUs per node", 8, 25 },
    { "RoCE network, 25G per GPU", 8, 25 },
    { "4x 50G per node", 8, 25 },
    { "A100 40G nodes with HDR InfiniBand 200G per GPU", 8, 200 },
    { "NVLink within node, NDR InfiniBand between nodes", 8, 0 },
    { "80G HBM per GPU; 100 Gb/s per node", 8, 12.5 },
    { "8x A100 80G per node", 8, 0 },
    { "H100 SXM5 (900 GB/s), 400 Gb/s per GPU", 8, 400 },
    { "HBM3 3.35 TB/s; 400 Gb/s per GPU", 8, 400 },
    /* none read: an NVLink figure, a figure without a scope, no figure */
    { "InfiniBand NDR", 8, 0 },
    { "200G HDR InfiniBand", 8, 0 },
    { "H800 NVLink 400 GB/s", 8, 0 },
    { "DGX-B300: NVLink 5 in 8-GPU servers, InfiniBand/ConnectX-8 800 Gb/s", 8, 0 },
    { "Omni-Path (OPA), 4 links per node", 8, 0 },
    { "", 8, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cells); i++)
    {
      g_autofree char *how = NULL;
      double got = res_pub_network_gbps_per_gpu (cells[i].cell, cells[i].node, 0, &how);
      if (fabs (got - cells[i].want) > 1e-9)
        g_error ("network '%s': %g Gb/s a GPU, expected %g", cells[i].cell, got, cells[i].want);
      g_assert_true ((how != NULL) == (cells[i].want > 0));
      /* "one per GPU" is said a GPU's (it was said a node's, the value right) */
      if (strstr (cells[i].cell, "one per GPU") != NULL)
        g_assert_nonnull (strstr (how, ": a GPU's"));
    }
  /* a figure scoped only as inter-node that is the preset's own NIC a GPU is a link's
   * rate, one NIC a GPU (MoE Parallel Folding's Eos, DGX H100 nodes: "400Gbps for
   * inter-node (InfiniBand) connections" read as the node's, 50 Gb/s a GPU); another
   * figure stays the node's: 800 / 8 = 100 */
  static const struct { const char *cell; double preset, want; } linked[] = {
    { "The peak uni-directional communication bandwidths are 450 GB/s for intra-node "
      "(NVLink) and 400Gbps for inter-node (InfiniBand) connections.", 400, 400 },
    { "InfiniBand (400Gbps inter-node)", 400, 400 },
    { "800 Gbps inter-node interconnect", 400, 100 },
    { "InfiniBand (400Gbps inter-node)", 200, 50 },
    /* ... nor where the clause says the figure is the node's (the seventh audit: each
     * read as one NIC a GPU) */
    { "aggregate inter-node bandwidth 400 Gb/s", 400, 50 },
    { "400 Gbps inter-node, shared by the 8 GPUs of a node", 400, 50 },
    { "400 Gbps inter-node Ethernet, one per node", 400, 50 },
    /* ... but a GPU's NIC said elsewhere keeps the link's rate (the eighth audit: the
     * words were read anywhere in the cell) */
    { "200 Gb/s InfiniBand between nodes; single NIC per GPU", 200, 200 },
    /* ... a single NIC or a shared link in a later clause is the node's, GPUs per node
     * there are not (the ninth audit) */
    { "InfiniBand HDR 200 Gb/s between nodes; single NIC", 200, 25 },
    { "200 Gb/s InfiniBand between nodes, HDR, shared by all 8 GPUs", 200, 25 },
    { "200 Gb/s HDR InfiniBand between nodes, 8 A100 GPUs per node", 200, 200 },
    /* ... and a NIC said one a node, or the GPUs said to share it (the tenth audit) */
    { "200 Gb/s InfiniBand between nodes; one HCA per node", 200, 25 },
    { "200 Gb/s InfiniBand between nodes, which all 8 GPUs share", 200, 25 },
    { "200 Gb/s InfiniBand between nodes; 1 NIC/node", 200, 25 },
    { "NVLink 600 GB/s aggregate; 200 Gb/s HDR InfiniBand inter-node", 200, 200 },
    /* NICs in the plural a node with no count, each at the preset's own NIC rate: the
     * preset's NICs (the regression audit of 7 Dec: "400 Gb/s ConnectX-7 NICs per node"
     * read 7 NICs, then the node's 50 Gb/s a GPU); at another rate each NIC's as well,
     * one a GPU (NICs in the plural share no single figure; it read as the node's, 25 Gb/s
     * a GPU); and "per node" with no plural NICs stays the node's */
    { "InfiniBand, 400 Gb/s ConnectX-7 NICs per node", 400, 400 },
    { "400 Gb/s NICs per node", 400, 400 },
    { "HDR 200 Gb/s ConnectX-6 HCAs per node", 200, 200 },
    { "HDR 200 Gb/s ConnectX-6 NICs per node", 400, 200 },
    { "100 Gb/s Ethernet NICs per node", 400, 100 },
    /* ... unless their count or share follows (then the node's, as before: the regression
     * audit of 7 Dec) */
    { "HDR 200 Gb/s ConnectX-6 NICs per node (4 of them)", 400, 25 },
    { "200 Gb/s HDR NICs per node, one per two GPUs", 400, 25 },
    { "400 Gb/s per node", 400, 50 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (linked); i++)
    {
      g_autofree char *how = NULL;
      double got = res_pub_network_gbps_per_gpu (linked[i].cell, 8, linked[i].preset, &how);
      if (fabs (got - linked[i].want) > 1e-9)
        g_error ("network '%s' (preset %g): %g Gb/s a GPU, expected %g", linked[i].cell,
                 linked[i].preset, got, linked[i].want);
    }
  /* a row on A100s whose network is AWS's EFA: the A100 preset's scale-out (Selene, 200
   * Gb/s = 25 GB/s a GPU) runs at 50 Gb/s = 6.25 GB/s, and the data-parallel sync of a
   * ZeRO-3 7B over 64 GPUs is slower for it; the explain line says so. The same row with
   * Selene's own "8x200 Gb/s" keeps the preset. */
  static const char head[] =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "zero_stage_or_fsdp,global_batch,step_time_s,network\n";
  g_autofree char *efa = g_strconcat (head, "1,Llama 2 7B,A100-SXM4-80GB,64,32,4096,32,32000,"
                                      "2048,1,1,FSDP,64,1.0,AWS EFA 400 Gbps per node\n", NULL);
  g_autofree char *hdr = g_strconcat (head, "1,Llama 2 7B,A100-SXM4-80GB,64,32,4096,32,32000,"
                                      "2048,1,1,FSDP,64,1.0,InfiniBand 8x200 Gb/s\n", NULL);
  g_autoptr (ResPublishedCase) a = case_of (efa);
  g_autoptr (ResPublishedCase) b = case_of (hdr);
  g_assert_true (a->ready && b->ready);
  g_assert_nonnull (a->network_note);
  g_assert_nonnull (strstr (a->network_note, "scale-out at 6.25 GB/s per device as stated"));
  g_assert_null (b->network_note);
  g_assert_cmpfloat (a->cluster->nic_Bps * a->cluster->nics_per_device, ==, 6.25e9);
  g_assert_cmpfloat (b->cluster->nic_Bps * b->cluster->nics_per_device, ==, 25e9);
  /* a Google Cloud machine type named with no rate stated: its GPU NICs (Google Cloud,
   * "Networking and GPU machines"): A3 High four 200 Gbps NICs for 8 GPUs, 100 Gb/s =
   * 12.5 GB/s a GPU; A3 Mega eight, 200 Gb/s = 25 GB/s; A3 Ultra one 400 Gb/s a GPU, the
   * H100 preset's own 50 GB/s (no note). The MaxText A3 rows read as InfiniBand, 50 GB/s. */
  static const struct { const char *gpu, *net; double want; } gcp[] = {
    { "H100 (Google Cloud a3-highgpu-8g)", "", 12.5e9 },
    { "H100-SXM-80GB", "GPUDirect-TCPX over Ethernet (NIC count/rate not stated)", 12.5e9 },
    { "H100-SXM-80GB (A3 Mega)", "GPUDirect-TCPXO", 25e9 },
    { "H100-SXM-80GB (a3-ultragpu-8g)", "", 50e9 },
    /* the first mention that is the row's; a comparison, a negation, a machine left, a
     * machine of fewer GPUs: not (the regression audit of 7 Dec) */
    { "H100-SXM-80GB", "GPUDirect-TCPX (A3 Mega would use TCPXO instead)", 12.5e9 },
    { "H100-SXM-80GB", "Azure ND H100 v5 InfiniBand (the blog compares against GCP A3 Mega)",
      50e9 },
    { "H100-SXM-80GB", "on-prem RoCE cluster (not Google Cloud A3 Mega)", 50e9 },
    { "H100-SXM-80GB", "migrated from a3-highgpu-8g to a3-megagpu-8g before this run", 50e9 },
    { "H100 (a3-highgpu-4g)", "", 50e9 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (gcp); i++)
    {
      g_autofree char *t = g_strdup_printf ("%s1,Llama 2 7B,\"%s\",64,32,4096,32,32000,2048,1,"
                                            "1,FSDP,64,1.0,\"%s\"\n", head, gcp[i].gpu,
                                            gcp[i].net);
      g_autoptr (ResPublishedCase) g = case_of (t);
      g_assert_true (g->ready);
      if (g->cluster->nic_Bps * g->cluster->nics_per_device != gcp[i].want)
        g_error ("'%s' / '%s': %g B/s a GPU, expected %g", gcp[i].gpu, gcp[i].net,
                 g->cluster->nic_Bps * g->cluster->nics_per_device, gcp[i].want);
      if (gcp[i].want != 50e9)
        g_assert_nonnull (strstr (g->network_note, "Google Cloud"));
    }
}

/* A published run ran the recipe it names with the release of its day: torchtitan's
 * delayed scaling (2024; dropped in January 2025, which predict refuses) is read, not
 * skipped (it was, for a while) */
static void
test_recipe_as_run (void)
{
  g_autoptr (ResPublishedCase) c = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "global_batch,step_time_s,framework,precision,zero_stage_or_fsdp\n"
    "1,GPT,H100-SXM-80GB,8,16,1024,16,16384,1024,1,1,8,1.0,torchtitan,"
    "\"float8 (torchao Float8Linear, delayed scaling)\",FSDP\n");
  if (!c->ready)
    g_error ("skipped: %s", c->skip_reason);
  g_assert_cmpint (c->plan.compute_dtype, ==, PLAN_PREC_FP8);
  g_assert_cmpint (c->plan.fp8_recipe, ==, FW_SCALING_DELAYED);
}

static void
test_units_and_ranges (void)
{
  static const struct { const char *cell; double want; } steps[] = {
    /* 1.5 h = 5,400 s; 500,000 us = 0.5 s (ASCII, micro sign, Greek mu; 500 us would
     * be 10,700 TFLOP/s per GPU for this row, refused as faster than an H100); 2 min =
     * 120 s */
    { "1.5 h", 5400 }, { "1.5hours", 5400 }, { "0.5 hr", 1800 }, { "500000 us", 0.5 },
    { "500000 \xc2\xb5s", 0.5 }, { "500000\xce\xbcs", 0.5 }, { "2 min", 120 },
    { "1.42 s (approx.)", 1.42 }, { "250 ms", 0.25 }, { "3 seconds", 3 },
    /* the day's cap in seconds: 90,000 ms is 90 s (it was refused as 90,000 > 86,400) */
    { "90000 ms", 90 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      g_autofree char *t = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "global_batch,step_time_s\n1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,64,%s\n",
        steps[i].cell);
      g_autoptr (ResPublishedCase) c = case_of (t);
      if (!c->ready || fabs (c->measured_step_s / steps[i].want - 1) > 1e-12)
        g_error ("step_time_s '%s': %g s, expected %g (%s)", steps[i].cell, c->measured_step_s,
                 steps[i].want, c->skip_reason ? c->skip_reason : "");
    }
  /* refused with the reason, never read as the first number */
  static const struct { const char *column, *cell, *why; } bad[] = {
    { "step_time_s", "0.45-0.60", "a range" }, { "step_time_s", "1.2 \xe2\x80\x93 1.4", "a range" },
    { "step_time_s", "12 avg", "no time unit" }, { "global_batch", "48 x 4", "a product" },
    { "global_batch", "48x4", "a product" }, { "seq_len", "2^12", "a power" },
    { "tp", "1-2", "a range" },
    /* a range whose first number has its unit or magnitude, or "to" */
    { "step_time_s", "0.45s-0.60s", "a range" }, { "step_time_s", "1.5 min-2 min", "a range" },
    { "step_time_s", "1.2 to 1.4", "a range" }, { "seq_len", "4K-8K", "a range" },
    /* an arrow from one number to another (seq_len "2048\xe2\x86\x924096" was read as
     * 2,048), with or without units or spaces, and the en dash after a unit */
    { "seq_len", "2048\xe2\x86\x92" "4096", "a range" },
    { "seq_len", "2048 -> 4096", "a range" }, { "seq_len", "2048->4096", "a range" },
    { "seq_len", "2K\xe2\x86\x92" "4K", "a range" }, { "seq_len", "8K -> 16K", "a range" },
    { "seq_len", "2048 \xe2\x9f\xb6 4096", "a range" },
    { "seq_len", "4K\xe2\x80\x93" "8K", "a range" },
    { "global_batch", "512 -> 1024", "a range" }, { "tp", "2\xe2\x86\x92" "4", "a range" },
    /* past the day's cap once in seconds (30 h = 108,000 s passed as 30) */
    { "step_time_s", "30 h", "at most 86400" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      const char *cols[] = { "seq_len", "tp", "global_batch", "step_time_s" };
      const char *vals[] = { "1024", "2", "64", "1.0" };
      g_autoptr (GString) t = g_string_new ("row_id,model,gpu_type,n_gpus,n_layers,hidden,"
                                            "n_heads,vocab,seq_len,tp,pp,global_batch,"
                                            "step_time_s\n1,GPT,H100-SXM-80GB,16,16,1024,16,"
                                            "16384,");
      for (guint k = 0; k < G_N_ELEMENTS (cols); k++)
        {
          g_string_append_printf (t, "\"%s\"", strcmp (cols[k], bad[i].column) == 0
                                               ? bad[i].cell : vals[k]);
          g_string_append (t, k == 1 ? ",1," : k + 1 < G_N_ELEMENTS (cols) ? "," : "\n");
        }
      g_autoptr (ResPublishedCase) c = case_of (t->str);
      if (c->ready || strstr (c->skip_reason, bad[i].why) == NULL)
        g_error ("%s '%s': %s, expected refused with '%s'", bad[i].column, bad[i].cell,
                 c->ready ? "read" : c->skip_reason, bad[i].why);
    }
  /* the GPUs' nodes x GPUs per node is the one product read: 6*8 = 48 (read as 6),
   * "1,536" = 1,536, and the store reads the cell as validate does (it kept 1) */
  static const struct { const char *cell; gint64 want; } gpus[] = {
    { "6*8", 48 }, { "6 x 8", 48 }, { "1,536", 1536 }, { "16x8", 128 },
    { "8 GPUs per node x 6 nodes", 48 }, { "8 GPUs/node, 6 nodes", 48 }, { "8 GPUs", 8 },
    { "8 GPUs per node, 1,024 nodes", 8192 }, { "8 GPUs per host, 6 hosts", 48 },
    { "8 GPUs/server, 6 servers", 48 }, { "8 GPUs per node x 16 machines", 128 },
    { "8 GPUs per node on 6 DGX nodes", 48 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (gpus); i++)
    {
      g_autofree char *t = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "global_batch,step_time_s\n1,GPT,H100-SXM-80GB,\"%s\",16,1024,16,16384,1024,1,1,"
        "1536,1.0\n", gpus[i].cell);
      g_autoptr (ResCsv) csv = res_csv_parse (t, -1, "inline", NULL);
      g_assert_nonnull (csv);
      g_assert_cmpint (res_published_row_gpus (csv, 0), ==, gpus[i].want);
      g_autoptr (ResPublishedCase) c = case_of (t);
      g_assert_cmpint (c->n_gpus, ==, gpus[i].want);
    }
  /* a rate's magnitude as a word: 3.2 thousand tokens/s per GPU = 3,200: step = 64 x 1,024
   * / (3,200 x 16) = 1.28 s */
  g_autoptr (ResPublishedCase) th = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
    "tokens_per_s_per_gpu\n1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,64,"
    "3.2 thousand\n");
  g_assert_true (th->ready);
  g_assert_cmpfloat (fabs (th->measured_step_s - 1.28), <, 1e-9);
  /* a billion a GPU is past the column's 10 M cap (it read as not stated) */
  g_autoptr (ResPublishedCase) bn = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
    "tokens_per_s_per_gpu\n1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,64,"
    "3.2 billion\n");
  g_assert_false (bn->ready);
  g_assert_nonnull (strstr (bn->skip_reason, "at most 10000000"));
  /* a batch with a magnitude letter and no unit names the question */
  g_autoptr (ResPublishedCase) k = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
    "step_time_s\n1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,1.5K,1.0\n");
  g_assert_false (k->ready);
  g_assert_nonnull (strstr (k->skip_reason, "sequences or tokens"));
}

static void
test_stack_defaults (void)
{
  g_autofree char *text = g_strdup (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,framework,"
    "global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,NeMo 24.07,64,1.0\n"
    "2,GPT,A100-SXM-80GB,16,16,1024,16,16384,1024,2,1,Megatron-DeepSpeed,64,1.0\n"
    "3,GPT,A100-SXM-80GB,16,16,1024,16,16384,1024,2,1,Megatron-Core,64,1.0\n");
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
  g_autoptr (ResPublishedCase) nemo = res_published_case_new (csv, 0);
  g_autoptr (ResPublishedCase) ds = res_published_case_new (csv, 1);
  g_autoptr (ResPublishedCase) mc = res_published_case_new (csv, 2);
  g_assert_cmpstr (nemo->stack->name, ==, "nemo");
  g_assert_true (nemo->plan.tp_comm_overlap);
  g_assert_cmpint (nemo->plan.grad_dtype, ==, PLAN_PREC_BF16);
  g_assert_cmpstr (ds->stack->name, ==, "deepspeed");
  g_assert_false (ds->plan.sequence_parallel);
  g_assert_cmpint (ds->plan.attention_backend, ==, PLAN_ATTN_UNFUSED);
  g_assert_false (ds->plan.overlap_param_gather);
  g_assert_cmpstr (mc->stack->name, ==, "megatron-core");
  g_assert_true (mc->plan.sequence_parallel);
  g_assert_false (mc->plan.tp_comm_overlap);
  g_assert_cmpint (mc->plan.attention_backend, ==, PLAN_ATTN_FLASH);
  /* a DeepSpeed row that names FlashAttention, in any spelling, ran the flash-attn
   * package's FA2 kernel (Megatron-DeepSpeed --use-flash-attn-v2): not unfused, and the
   * stack's kernel class is FA2 (it stayed "unfused": cuDNN's fraction without its length
   * curve; "flash attention", "flash-attn" and "FA2" were not even read as flash) */
  static const char *const flash[] = { "Megatron-DeepSpeed (FlashAttention-2)",
                                       "Megatron-DeepSpeed (flash attention)",
                                       "Megatron-DeepSpeed --use-flash-attn-v2",
                                       "DeepSpeed + FA2" };
  for (guint i = 0; i < G_N_ELEMENTS (flash); i++)
    {
      g_autofree char *ft = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,framework,"
        "global_batch,step_time_s\n"
        "1,GPT,A100-SXM-80GB,16,16,1024,16,16384,1024,2,1,\"%s\",64,1.0\n", flash[i]);
      g_autoptr (ResPublishedCase) f = case_of (ft);
      if (!f->ready || f->plan.attention_backend == PLAN_ATTN_UNFUSED
          || f->stack->attention != FW_ATTN_FLASH2)
        g_error ("'%s': backend %d, stack kernel %d", flash[i], f->plan.attention_backend,
                 f->stack->attention);
    }
  /* "FAST" is no FA2: a word of its own only */
  g_autoptr (ResPublishedCase) fast = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,framework,"
    "global_batch,step_time_s\n"
    "1,GPT,A100-SXM-80GB,16,16,1024,16,16384,1024,2,1,DeepSpeed (FA2X build),64,1.0\n");
  g_assert_cmpint (fast->plan.attention_backend, ==, PLAN_ATTN_UNFUSED);
}

/* --ranking by hand: four predicted rows of one model, GPU family, size and batch (one
 * group) with plans A, B, C, D, plus one row of another size (its own group of one, not
 * counted). Measured 10, 12, 20, 10.3 s; predicted 9, 13, 11, 12 s.
 * Pairs (6): A-B measured up, predicted up: ordered (20% apart: wide);
 *   A-C up / up: ordered (wide); A-D up / up: ordered (3% apart: not wide);
 *   B-C up / down: NOT ordered (wide); B-D down / down: ordered (wide, 12 vs 10.3 = 16.5%);
 *   C-D down / up: NOT ordered (wide).
 * So 6 pairs, 4 ordered; 5 wide, 3 ordered.
 * A group is one GPU type, not one family: rows 6 and 7 (32 GPUs, measured 10 / 20 s,
 * predicted 20 / 10 s: out of order if paired) run on an A100 80 GB (selene) and an A100
 * 40 GB (a100-40g-cluster), two devices of one family, so each is a group of one and
 * the counts above stay. */
static ResPublishedCase *
fake (gint64 id, int tp, gint64 gpus, double measured, double predicted)
{
  ResPublishedCase *c = g_new0 (ResPublishedCase, 1);
  plan_init_defaults (&c->plan);
  c->row_id = id;
  c->model_label = g_strdup ("GPT");
  c->gpu_type = g_strdup ("A100");
  c->family = RES_PUB_FAMILY_A100;
  c->n_gpus = gpus;
  c->plan_valid = TRUE;
  c->plan.tp = tp;
  c->plan.pp = c->plan.cp = c->plan.vpp = 1;
  c->plan.dp_given = (int) gpus / tp;
  c->plan.global_batch = 64;
  c->plan.seq_length = 2048;
  c->measured_step_s = measured;
  c->predicted_step_s = predicted;
  c->predicted = TRUE;
  return c;
}

static void
test_ranking (void)
{
  ResPublishedReport r = { 0 };
  r.cases = g_ptr_array_new_with_free_func ((GDestroyNotify) res_published_case_free);
  g_ptr_array_add (r.cases, fake (1, 1, 8, 10.0, 9.0));
  g_ptr_array_add (r.cases, fake (2, 2, 8, 12.0, 13.0));
  g_ptr_array_add (r.cases, fake (3, 4, 8, 20.0, 11.0));
  g_ptr_array_add (r.cases, fake (4, 8, 8, 10.3, 12.0));
  g_ptr_array_add (r.cases, fake (5, 1, 16, 5.0, 9.0));
  ResPublishedCase *on80 = fake (6, 1, 32, 10.0, 20.0), *on40 = fake (7, 2, 32, 20.0, 10.0);
  on80->cluster = topo_cluster_lookup ("selene", NULL);
  on40->cluster = topo_cluster_lookup ("a100-40g-cluster", NULL);
  g_assert_nonnull (on80->cluster);
  g_assert_nonnull (on40->cluster);
  g_ptr_array_add (r.cases, on80);
  g_ptr_array_add (r.cases, on40);
  ResPublishedRanking rk;
  res_published_ranking (&r, &rk);
  g_assert_cmpuint (rk.n_groups, ==, 1);
  g_assert_cmpuint (rk.n_pairs, ==, 6);
  g_assert_cmpuint (rk.n_ordered, ==, 4);
  g_assert_cmpuint (rk.n_pairs_wide, ==, 5);
  g_assert_cmpuint (rk.n_ordered_wide, ==, 3);
  g_assert_cmpuint (rk.misordered->len, ==, 2);
  g_assert_nonnull (strstr (rk.misordered->pdata[0], "rows 2 (tp2."));
  res_published_ranking_clear (&rk);
  g_ptr_array_unref (r.cases);

  /* Rows whose short plan strings agree but whose plans differ as tandem reads them
   * (torch.compile here; the FP8 recipe, the MoE options alike) are a pair: they were
   * dropped as one plan measured twice. Rows of the very same plan stay out: 11 and 13
   * (measured 10 and 10.5 s, predicted 10 s both) are no pair; 11 or 13 against the
   * compiled 12 are two, 12 (9 s measured) predicted slower than both (11 s): misordered */
  ResPublishedReport r2 = { 0 };
  r2.cases = g_ptr_array_new_with_free_func ((GDestroyNotify) res_published_case_free);
  ResPublishedCase *eager = fake (11, 1, 64, 10.0, 10.0), *compiled = fake (12, 1, 64, 9.0, 11.0);
  compiled->plan.compile = TRUE;
  g_ptr_array_add (r2.cases, eager);
  g_ptr_array_add (r2.cases, compiled);
  g_ptr_array_add (r2.cases, fake (13, 1, 64, 10.5, 10.0));
  res_published_ranking (&r2, &rk);
  g_assert_cmpuint (rk.n_groups, ==, 1);
  g_assert_cmpuint (rk.n_pairs, ==, 2);
  g_assert_cmpuint (rk.n_ordered, ==, 0);
  g_assert_cmpuint (rk.misordered->len, ==, 2);
  g_assert_nonnull (strstr (rk.misordered->pdata[0], "-compile-"));
  res_published_ranking_clear (&rk);
  g_ptr_array_unref (r2.cases);
}

/* The explain of the only row of an inline CSV, which must be ready to predict. */
static char *
explain_one (const char *text)
{
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
  g_assert_nonnull (csv);
  g_autoptr (ResPublishedCase) c = res_published_case_new (csv, 0);
  g_assert_true (c->ready);
  return res_published_explain (csv, 0, c);
}

/* Fails the test, printing the explain, where it lacks `want`. */
static void
assert_explains (const char *explain, const char *want)
{
  if (strstr (explain, want) == NULL)
    g_error ("explain lacks '%s':\n%s", want, explain);
}

/* An empty sharding cell read from the framework cell says so on its explain line; one
 * read as the stack's default says nothing more, also where the framework cell names
 * FSDP or a ZeRO stage to say it off. 16 H100s, tp 1 pp 1. */
static void
test_sharding_from_framework (void)
{
  static const struct { const char *framework, *line; } rows[] = {
    { "HF Accelerate + DeepSpeed ZeRO-3",
      "-> zero3 (the cell is empty: the framework cell names the ZeRO stage)\n" },
    { "PyTorch FSDP", "-> zero3 (the cell is empty: the framework cell names FSDP)\n" },
    { "DeepSpeed", "-> zero1\n" },
    /* FSDP said off or not used by the words around it: the stack's default, zero1 on
     * megatron-core and nemo (each read zero3 from the FSDP named) */
    { "Megatron-LM; FSDP was not used", "-> zero1\n" },
    { "NeMo (use_torch_fsdp2: False)", "-> zero1\n" },
    { "NeMo (FSDP was not needed)", "-> zero1\n" },
    { "Megatron-LM (instead of FSDP)", "-> zero1\n" },
    { "DeepSpeed; ZeRO-3 was not used", "-> zero1\n" },
    /* offloading or ZeRO-Infinity said off or not used leaves the scheme named (the
     * ZeRO-3 one read as offloading, the stack's zero1) */
    { "PyTorch FSDP (w/o CPU offload)",
      "-> zero3 (the cell is empty: the framework cell names FSDP)\n" },
    { "PyTorch FSDP (CPU offload not used)",
      "-> zero3 (the cell is empty: the framework cell names FSDP)\n" },
    { "PyTorch FSDP (CPU offload not needed)",
      "-> zero3 (the cell is empty: the framework cell names FSDP)\n" },
    { "PyTorch FSDP (no activation offloading)",
      "-> zero3 (the cell is empty: the framework cell names FSDP)\n" },
    { "DeepSpeed ZeRO-3 (not ZeRO-Infinity)",
      "-> zero3 (the cell is empty: the framework cell names the ZeRO stage)\n" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "zero_stage_or_fsdp,framework,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,1,1,,\"%s\",64,1.0\n",
        rows[i].framework);
      g_autofree char *e = explain_one (text);
      assert_explains (e, rows[i].line);
    }
}

/* A long sharding cell (about 440 KB) maps as its short form does: the clause negations
 * are read in one walk of the text (each mention scanned back to its clause start, 40,000
 * "distributed optimizer" took 24 s). A negation word counts across the length of its
 * clause, and not past its end. Megatron-Core, 16 GPUs. */
static void
test_sharding_long_cell (void)
{
  g_autoptr (GString) many = g_string_new (NULL);
  for (int i = 0; i < 20000; i++)
    g_string_append (many, "distributed optimizer ");
  g_autofree char *off = g_strconcat ("not using the ", many->str, NULL);
  g_autofree char *other = g_strconcat ("not tensor parallel, ", many->str, NULL);
  static const PlanSharding want[] = { PLAN_SHARD_ZERO1, PLAN_SHARD_NONE, PLAN_SHARD_ZERO1 };
  const char *cells[] = { many->str, off, other };
  for (guint i = 0; i < G_N_ELEMENTS (cells); i++)
    {
      g_autoptr (ResPublishedCase) c = row ("A100-SXM-80GB", 16, 1, cells[i],
                                            "Megatron-Core r0.8.0", "bf16");
      g_assert_true (c->ready);
      g_assert_cmpint (c->plan.sharding, ==, want[i]);
    }
}

/* The explain line says where the sharding is not the cell's own reading: FSDP said off
 * on NeMo reads as the stack's default, the distributed optimizer, and says so, also with
 * DDP named in FSDP's place as NVIDIA's tables gloss the column (that read none); the
 * empty cell's zero1 and a stated one say nothing more; DDP alone, or said unsharded,
 * stays none. 16 GPUs, tp 1 pp 1. */
static void
test_sharding_explain (void)
{
  static const struct { const char *cell, *line; } rows[] = {
    { "FSDP 0", "-> zero1 (FSDP said off, not the sharded optimizer: the stack's default)\n" },
    { "FSDP 0 (page nomenclature: 'FSDP = 0: use DDP (Distributed Data Parallel)')",
      "-> zero1 (FSDP said off and DDP named in its place (Megatron's DDP runs with the "
      "distributed optimizer), not the sharded optimizer: the stack's default)\n" },
    { "no FSDP (DDP)", "-> zero1 (FSDP said off and DDP named in its place (Megatron's DDP "
      "runs with the distributed optimizer), not the sharded optimizer: the stack's default)\n" },
    { "DDP", "-> none\n" },
    { "no FSDP, DDP, optimizer unsharded", "-> none\n" },
    { "", "-> zero1\n" },
    { "distributed optimizer (FSDP 0)", "-> zero1\n" },
    /* NVIDIA's FSDP switch on, beside its gloss of FSDP 0: the line says that gloss was
     * not read as the run's */
    { "FSDP 1 (use FSDP; 0 = unsharded DDP)", "-> zero3 (FSDP 1, NVIDIA's FSDP switch on: what "
      "the cell says of FSDP 0 is the other setting's)\n" },
    /* ... but a 0 before ':' or '=' after another axis's name (EP, DDP, CP) is that axis's
     * value, and its words are no gloss of FSDP 0: the line says only zero3 (it said the
     * cell's words of FSDP 0 were the other setting's) */
    { "FSDP 1 (Megatron-FSDP; EP 0: n/a for dense)", "-> zero3\n" },
    { "FSDP=1, DDP=0: n/a, sharding optim_grads_params", "-> zero3\n" },
    { "FSDP 1 (Megatron-FSDP), CP 0 = no context parallel", "-> zero3\n" },
    /* ... and after any other word (the seventh audit) */
    { "FSDP 1 (Megatron-FSDP; ZeRO 0: n/a)", "-> zero3\n" },
    { "FSDP 1; offload 0: none", "-> zero3\n" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "zero_stage_or_fsdp,framework,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,1,1,\"%s\",NeMo 24.07,64,1.0\n",
        rows[i].cell);
      g_autofree char *e = explain_one (text);
      assert_explains (e, rows[i].line);
    }
}

/* An empty precision cell beside notes that say the run trained in FP8 is FP8 (it was
 * bf16), and the explain line says it came from the notes; notes that name FP8 but not as
 * the run's (in a comparison, a trial or a plan), say it off, or name BF16 as the run's,
 * leave bf16. H100, 8 GPUs. */
static void
test_precision_from_notes (void)
{
  static const struct { const char *notes; gboolean fp8; } rows[] = {
    { "trained in FP8 with Transformer Engine", TRUE },
    { "FP8 training; loss curves match BF16", TRUE },
    { "with FP8 (delayed scaling)", TRUE },
    { "FP8 results in table 3", FALSE },
    { "not trained in FP8", FALSE },
    { "with FP8 disabled", FALSE },
    /* FP8 named in a comparison, a trial or a plan, or beside BF16 as the run's: bf16 (each
     * read as FP8) */
    { "FP8 training was tried but unstable; the final run used BF16.", FALSE },
    { "Compared with FP8, BF16 was 1.3x slower; this run is BF16.", FALSE },
    { "Same model with FP8 reaches 600 TFLOP/s (row 6).", FALSE },
    { "FP8 training planned for the next run.", FALSE },
    { "Unlike DeepSeek-V3 (trained with FP8), this run is BF16.", FALSE },
    { "Trained with FP8. The final run used BF16.", FALSE },
    /* BF16 named for a part of the run, or after "than", is not the run's; "row 3" and
     * "the next 2 weeks" make no aside: FP8 (each read bf16) */
    { "Trained in FP8 with BF16 master weights.", TRUE },
    { "FP8 training via Transformer Engine; first and last layers kept in BF16.", TRUE },
    { "Trained with FP8; gradients reduced in BF16.", TRUE },
    { "FP8 training. Optimizer states in FP32, params in bf16.", TRUE },
    { "Trained in FP8 rather than BF16.", TRUE },
    { "Trained in FP8, 1.3x faster than BF16.", TRUE },
    { "FP8 training with Transformer Engine, row 3 of Table 4.", TRUE },
    { "Trained in FP8 on 96 H100s for the next 2 weeks.", TRUE },
    /* ... nor BF16 said of another row or run (each read bf16) */
    { "Trained in FP8 (row 4 is the BF16 run).", TRUE },
    { "Trained in FP8; rows 5-8 are BF16.", TRUE },
    { "Trained with FP8; the other run used BF16.", TRUE },
    /* ... but a row or run named beside this one's BF16 is no other row's subject: bf16
     * (each read FP8) */
    { "FP8 training was enabled only for row 7. BF16 as in rows 1-6.", FALSE },
    { "Same BF16 recipe as the other runs; FP8 training is in row 12.", FALSE },
    { "This run and row 5 are BF16; FP8 training only in row 6.", FALSE },
    { "Precision BF16 from row 3 of Table 4; FP8 training results are in Table 5.", FALSE },
    /* ... while BF16 said of other rows in other words is theirs: FP8 (the subject-only
     * rule that fixed the four above read these bf16) */
    { "FP8 training. BF16 like the other rows of this table was slower.", TRUE },
    { "Trained in FP8; BF16 rows 1-4 ran the same recipe.", TRUE },
    { "FP8 training (BF16 in rows 1-4).", TRUE },
    { "FP8 training; the BF16 runs are rows 1-4.", TRUE },
    /* ... but a BF16 said of the run beside one of a part is the run's */
    { "Trained in FP8 with BF16 master weights. The final run used BF16.", FALSE },
    { "Trained with FP8. The final run used BF16 for all layers.", FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "precision,notes,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,8,16,1024,16,16384,1024,1,1,,\"%s\",32,1.0\n", rows[i].notes);
      g_autoptr (ResPublishedCase) c = case_of (text);
      g_assert_true (c->ready);
      if ((c->plan.compute_dtype == PLAN_PREC_FP8) != rows[i].fp8)
        g_error ("notes '%s': compute dtype %d", rows[i].notes, c->plan.compute_dtype);
      g_autofree char *e = explain_one (text);
      if (rows[i].fp8)
        assert_explains (e, "; the cell is empty: the notes say the run trained in FP8\n");
      else
        assert_explains (e, "-> bf16\n");
    }
}

/* An empty sequence_parallel cell reads the notes: said off there, off (each read as the
 * megatron-core stack's default, on with tp 2), named, on, and the explain line says the
 * notes gave it; notes that say nothing of it leave the stack's default. 16 H100s, tp 2. */
static void
test_sp_from_notes (void)
{
  static const struct { const char *notes; gboolean want; const char *line; } rows[] = {
    { "we did not use sequence parallelism", FALSE,
      "-> off (the cell is empty: the notes say it off)\n" },
    { "Sequence parallelism off", FALSE, "-> off (the cell is empty: the notes say it off)\n" },
    { "--sequence-parallel not set", FALSE,
      "-> off (the cell is empty: the notes say it off)\n" },
    { "ran with --sequence-parallel", TRUE, "-> on (the cell is empty: the notes name it)\n" },
    { "no recompute", TRUE,
      "sequence_parallel    (empty)                                      -> on\n" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "sequence_parallel,notes,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,,\"%s\",64,1.0\n", rows[i].notes);
      g_autoptr (ResPublishedCase) c = case_of (text);
      g_assert_true (c->ready);
      if (c->plan.sequence_parallel != rows[i].want)
        g_error ("notes '%s': sequence parallel %d", rows[i].notes, c->plan.sequence_parallel);
      g_autofree char *e = explain_one (text);
      assert_explains (e, rows[i].line);
    }
}

/* Notes that say sequence parallelism is not stated say nothing of it: the stack's
 * default (megatron-core on with tp 2, Megatron-DeepSpeed off), where "not stated" read
 * off, and a slash list of unstated settings named it, on; a mention about Ulysses is not
 * Megatron's SP (read on); "unavailable" says it off (read on). Named at tp 1 it is off,
 * and the line says why (it read "off (the cell is empty: the notes name it)"). Only the
 * mention's own clause can say it not stated, and never one said off; a mention only
 * beside Ulysses is read as any other. 16 H100s. */
static void
test_sp_from_notes_unstated (void)
{
  static const struct { const char *framework; int tp; const char *notes; gboolean want;
                        const char *line; } rows[] = {
    { "Megatron-Core r0.8.0", 2, "Sequence parallelism not stated.", TRUE,
      "sequence_parallel    (empty)                                      -> on\n" },
    { "Megatron-DeepSpeed", 2,
      "ffn size/micro-batch/recompute/sequence-parallel not stated (defaults likely).", FALSE,
      "sequence_parallel    (empty)                                      -> off\n" },
    { "Megatron-DeepSpeed", 2, "Trained with Ulysses sequence parallelism degree 4.", FALSE,
      "sequence_parallel    (empty)                                      -> off\n" },
    { "Megatron-DeepSpeed", 2,
      "Megatron-style sequence parallelism is unavailable in this DeepSpeed version.", FALSE,
      "-> off (the cell is empty: the notes say it off)\n" },
    { "Megatron-Core r0.8.0", 1, "ran with --sequence-parallel", FALSE,
      "-> off (the cell is empty: the notes name it, but tp is 1 and SP needs TP)\n" },
    /* "not stated" of another setting, past a comma or the next setting word, says
     * nothing of SP (these read the stack's default, off / on) ... */
    { "Megatron-DeepSpeed", 2, "TP=2 with sequence parallelism, recompute unknown", TRUE,
      "-> on (the cell is empty: the notes name it)\n" },
    { "Megatron-DeepSpeed", 2,
      "Sequence parallelism across the 8 TP ranks, pipeline schedule not specified.", TRUE,
      "-> on (the cell is empty: the notes name it)\n" },
    { "Megatron-Core r0.8.0", 2, "No sequence parallelism, recompute not stated.", FALSE,
      "-> off (the cell is empty: the notes say it off)\n" },
    { "Megatron-Core r0.8.0", 2,
      "We did not use sequence parallelism or activation recompute (not stated why).", FALSE,
      "-> off (the cell is empty: the notes say it off)\n" },
    /* ... and a mention negated or contrasted beside Ulysses, not about it, is Megatron's
     * SP (these read the stack's default) */
    { "Megatron-DeepSpeed", 2, "Sequence parallelism enabled, not Ulysses.", TRUE,
      "-> on (the cell is empty: the notes name it)\n" },
    { "Megatron-DeepSpeed", 2,
      "Megatron sequence parallelism plus DeepSpeed-Ulysses for long context.", TRUE,
      "-> on (the cell is empty: the notes name it)\n" },
    { "Megatron-Core r0.8.0", 2, "Sequence parallelism disabled (Ulysses used instead).", FALSE,
      "-> off (the cell is empty: the notes say it off)\n" },
    { "Megatron-Core r0.8.0", 2, "Ulysses instead of Megatron sequence parallelism.", FALSE,
      "-> off (the cell is empty: the notes say it off)\n" },
    { "Megatron-DeepSpeed", 2, "Ulysses-style sequence parallelism degree 4.", FALSE,
      "sequence_parallel    (empty)                                      -> off\n" },
    /* a plain mention in notes that name Ulysses un-negated may be either: the stack's
     * default (read on: regression audit of 7 Dec) */
    { "Megatron-DeepSpeed", 2, "DeepSpeed-Ulysses, sequence parallel size 4", FALSE,
      "sequence_parallel    (empty)                                      -> off\n" },
    { "Megatron-DeepSpeed", 2, "DeepSpeed-Ulysses. Sequence parallelism degree 4.", FALSE,
      "sequence_parallel    (empty)                                      -> off\n" },
    { "Megatron-DeepSpeed", 2,
      "Uses sequence parallelism; whether Megatron or Ulysses is not stated", FALSE,
      "sequence_parallel    (empty)                                      -> off\n" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "sequence_parallel,framework,notes,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,%d,1,,\"%s\",\"%s\",64,1.0\n",
        rows[i].tp, rows[i].framework, rows[i].notes);
      g_autoptr (ResPublishedCase) c = case_of (text);
      g_assert_true (c->ready);
      if (c->plan.sequence_parallel != rows[i].want)
        g_error ("notes '%s': sequence parallel %d", rows[i].notes, c->plan.sequence_parallel);
      g_autofree char *e = explain_one (text);
      assert_explains (e, rows[i].line);
    }
}

/* --explain of a row whose plan did not resolve prints the derived counts only where
 * they exist: a global batch that does not divide into micro-batch x dp, or one past the
 * cap of micro-batches, printed "191 (0 micro-batches per step)" beside a skip line that
 * said why there are none (and, for the second, that there would be 44739242). The skip
 * reason's hint names the CSV cell, not predict's flag ("--global-batch-size 144 or
 * 192", which a CSV row has no use for). 48 GPUs at tp 1 pp 1: dp 48, micro-batch 1. */
/* A gpu_type that says its parts ran power limited is not dropped without a word: where
 * the preset holds no clock at a cap (B200, torchao's MX README: "8x power limited B200
 * GPUs", the limit not stated) explain says the rated power was predicted; where it holds
 * one (the 94/96 GB H100 at 500 W: 0.879 of the rated clock, its preset) it says which;
 * a cell that names only a power ("500 W") says neither. */
static void
test_explain_power_limited (void)
{
  static const struct { const char *gpu; const char *want; } rows[] = {
    { "B200 (8x power limited B200 GPUs)", "said power limited, and the preset holds no clock "
                                           "below its rated power: predicted at the rated power" },
    { "H100-SXM-96GB-HBM2e (power capped at 500 W)", "said power limited: the preset's clock at "
                                                     "its cap, 0.879 of the rated one" },
    { "H100-SXM-96GB-HBM2e (500 W)", NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "micro_batch,global_batch,step_time_s\n"
        "1,GPT,\"%s\",8,16,1024,16,16384,1024,1,1,1,8,1.0\n", rows[i].gpu);
      g_autofree char *e = explain_one (text);
      if (rows[i].want != NULL)
        assert_explains (e, rows[i].want);
      else
        g_assert_null (strstr (e, "power limited"));
    }
}

/* A hybrid Mamba-2 model written as cells (Nemotron-H 56B: 118 layers, hidden 8192, 64
 * heads, as a dgxc recipe's README gives it) is its shipped preset, not a transformer of
 * 118 attention + MLP layers (1.4x the FLOPs, audit of 7 Dec): 54 Mamba, 10 attention and
 * 54 MLP layers (models/presets/nemotron-h-56b.json hybrid_override_pattern). A hybrid
 * whose shape is no preset's is skipped with a hint; Nemotron-4 stays a transformer. */
static void
test_hybrid_mamba_model (void)
{
  static const char *const head =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,n_kv_heads,ffn_hidden,vocab,"
    "seq_len,tp,pp,micro_batch,global_batch,step_time_s\n";
  g_autofree char *nh = g_strconcat (head, "1,Nemotron-H 56B,H100-SXM-80GB,64,118,8192,64,8,"
                                     "32768,131072,8192,8,1,1,64,15.0\n", NULL);
  g_autoptr (ResPublishedCase) c = case_of (nh);
  if (!c->ready)
    g_error ("%s", c->skip_reason);
  g_assert_cmpstr (c->model_preset, ==, "nemotron-h-56b");
  g_assert_true (model_spec_is_mamba (c->model));
  g_assert_cmpuint (model_spec_n_layers_of_kind (c->model, 'M'), ==, 54);
  g_assert_cmpuint (model_spec_n_layers_of_kind (c->model, '*'), ==, 10);
  g_assert_cmpuint (model_spec_n_layers_of_kind (c->model, '-'), ==, 54);
  g_autofree char *e = explain_one (nh);
  assert_explains (e, "-> the nemotron-h-56b preset: hybrid Mamba-2, 54 Mamba, 10 attention "
                      "and 54 MLP layers");
  /* the 8B's shape: its preset (52 layers, hidden 4096, 32 heads) */
  g_autofree char *n8 = g_strconcat (head, "1,NemotronH-8B,H100-SXM-80GB,8,52,4096,32,8,"
                                     "21504,131072,8192,1,1,1,8,1.0\n", NULL);
  g_autoptr (ResPublishedCase) c8 = case_of (n8);
  g_assert_true (c8->ready);
  g_assert_cmpstr (c8->model_preset, ==, "nemotron-h-8b");
  /* the row's sequence is the one trained, below the preset's 8192 context too (it took
   * the longer of the two) */
  g_autofree char *n4k = g_strconcat (head, "1,NemotronH-8B,H100-SXM-80GB,8,52,4096,32,8,"
                                      "21504,131072,4096,1,1,1,8,1.0\n", NULL);
  g_autoptr (ResPublishedCase) c4k = case_of (n4k);
  g_assert_true (c4k->ready);
  g_assert_cmpuint (c4k->model->max_positions, ==, 4096);
  /* Nemotron-H 47B (98 layers): no preset, skipped with the way to predict it */
  g_autofree char *n47 = g_strconcat (head, "1,Nemotron-H 47B,H100-SXM-80GB,64,98,8192,64,8,"
                                      "30720,131072,8192,8,1,1,64,15.0\n", NULL);
  g_autoptr (ResPublishedCase) c47 = case_of (n47);
  g_assert_false (c47->ready);
  g_assert_nonnull (strstr (c47->skip_reason, "is a hybrid Mamba-2 model"));
  g_assert_nonnull (strstr (c47->skip_reason, "(hint: tandem predict --model"));
  /* Nemotron-4 15B and a "Nemotron-Hybrid"-less name stay transformers */
  g_autofree char *n4 = g_strconcat (head, "1,Nemotron-4 15B,H100-SXM-80GB,64,32,6144,48,8,"
                                     "24576,256000,4096,2,1,1,64,1.0\n", NULL);
  g_autoptr (ResPublishedCase) c4 = case_of (n4);
  g_assert_true (c4->ready);
  g_assert_null (c4->model_preset);
  g_assert_false (model_spec_is_mamba (c4->model));
}

/* A vocabulary in thousands ("250k", BigScience's Jean Zay notes for BLOOM's 250,880) is
 * that many thousand (the row was skipped as missing its vocab); a word after the k is
 * no such count, but for "tokens". */
static void
test_vocab_thousands (void)
{
  static const struct { const char *vocab; gint64 want; } rows[] = {
    { "250k", 250000 }, { "32K", 32000 }, { "128 k (Llama 3 tokenizer)", 128000 },
    { "50257", 50257 }, { "250k merges", 0 },
    /* ... but its own unit ("32k tokens" was refused: audit of 7 Dec) */
    { "32k tokens", 32000 }, { "250K tokens (BPE)", 250000 },
    /* the exact count in the bracket where it is that size */
    { "256K (262144)", 262144 }, { "128k (128,256)", 128256 }, { "32k (see notes)", 32000 },
    /* the size it says it was padded to */
    { "50k BPE, padded to 50304", 50304 }, { "50257 (padded to 50,304)", 50257 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,8,16,1024,16,\"%s\",1024,1,1,64,1.0\n", rows[i].vocab);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (rows[i].want == 0)
        {
          g_assert_false (c->ready);
          g_assert_nonnull (strstr (c->skip_reason, "missing vocab"));
          continue;
        }
      if (!c->ready)
        g_error ("'%s': %s", rows[i].vocab, c->skip_reason);
      g_assert_cmpuint (c->model->vocab, ==, (guint64) rows[i].want);
    }
}

/* A gated MLP the row names at the classic 4h width ("mlp_ratio 8 with SwiGLU": AMD-OLMo
 * 1B's two 4h halves of a fused 8h projection) is SwiGLU-shaped, three matrices, where it
 * read as a GeLU MLP of two; a GeLU said in place of it, or no word, stays GeLU; the tie
 * of the output head is unchanged (OLMo 1B ties it). */
static void
test_gated_mlp_named (void)
{
  static const struct { const char *model, *notes; ModelMlpKind want; } rows[] = {
    { "AMD-OLMo-1B", "mlp_ratio 8 with SwiGLU", MODEL_MLP_SWIGLU },
    { "GLM-130B (GeGLU)", "", MODEL_MLP_SWIGLU },
    { "GPT", "GeLU MLP instead of SwiGLU", MODEL_MLP_GELU },
    { "GPT", "no SwiGLU", MODEL_MLP_GELU },
    { "GPT", "", MODEL_MLP_GELU },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,ffn_hidden,vocab,seq_len,tp,pp,"
        "global_batch,step_time_s,notes\n"
        "1,%s,H100-SXM-80GB,8,16,2048,16,8192,50304,2048,1,1,64,1.0,\"%s\"\n",
        rows[i].model, rows[i].notes);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (!c->ready)
        g_error ("%s: %s", rows[i].notes, c->skip_reason);
      if (c->model->mlp != rows[i].want)
        g_error ("'%s' / '%s': mlp %d, want %d", rows[i].model, rows[i].notes, c->model->mlp,
                 rows[i].want);
      /* the tie stays the cell-width rule's: a classic-width MLP, so tied (OLMo 1B's
       * config: weight_tying true) */
      if (i == 0)
        g_assert_true (c->model->tied_embeddings);
    }
}

static void
test_explain_unresolved (void)
{
  static const struct { const char *batch, *line, *skip; } rows[] = {
    /* 191 / (1 x 48) = 3.98: the batches that divide are 3 x 48 = 144 and 4 x 48 = 192 */
    { "191", "-> 191 (micro-batches per step not derived: skipped, below)",
      "= 48 (hint: global_batch 144 or 192)" },
    /* 2147483616 / (1 x 48) = 44739242 micro-batches, above the cap of 65536 */
    { "2147483616", "-> 2147483616 (micro-batches per step not derived: skipped, below)",
      "44739242 micro-batches per step, above the cap of 65536 (the step program grows "
      "with them; real plans use at most a few thousand) (hint: raise micro_batch or "
      "n_gpus, or lower global_batch)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "micro_batch,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,48,16,1024,16,16384,1024,1,1,1,%s,50000\n", rows[i].batch);
      g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
      g_autoptr (ResPublishedCase) c = res_published_case_new (csv, 0);
      g_assert_false (c->ready);
      g_assert_nonnull (c->skip_reason);
      if (strstr (c->skip_reason, rows[i].skip) == NULL)
        g_error ("skip '%s' lacks '%s'", c->skip_reason, rows[i].skip);
      g_autofree char *e = res_published_explain (csv, 0, c);
      assert_explains (e, rows[i].line);
      g_assert_null (strstr (e, "(0 micro-batch"));
    }
  /* Megatron-Core refuses expert parallelism with TP but without sequence parallelism;
   * the hint was "add --sequence-parallel", where the row's cell is what to change (16
   * GPUs at tp 2, ep 8, sequence_parallel no) */
  g_autoptr (ResPublishedCase) moe = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,ep,"
    "sequence_parallel,moe,global_batch,step_time_s\n"
    "1,MoE,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,8,no,experts=8;top_k=2;moe_ffn=512,"
    "64,1.0\n");
  g_assert_false (moe->ready);
  if (!g_str_has_suffix (moe->skip_reason, "needs sequence parallelism, as Megatron-Core "
                         "requires (arguments.py with expert parallelism, MoELayer.forward in "
                         "training) (hint: sequence_parallel yes)"))
    g_error ("skip '%s'", moe->skip_reason);
  /* an HSDP group skipped as not dividing dp names no group of 0 ("hsdp, shard group 0") */
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "zero_stage_or_fsdp,framework,precision,global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,64,16,1024,16,16384,1024,1,1,HSDP shard 3,torchtitan,bf16,256,1.0\n");
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
  g_autoptr (ResPublishedCase) hc = res_published_case_new (csv, 0);
  g_assert_false (hc->ready);
  g_autofree char *e = res_published_explain (csv, 0, hc);
  assert_explains (e, "-> hsdp, no shard group (skipped: below)");
  g_assert_null (strstr (e, "shard group 0"));
  /* a row skipped at its micro_batch: the columns the mapping had not reached say so,
   * not the plan's defaults in their place ("precision -> bf16" and every overlap off
   * for an FP8 row, audit of 7 Dec); those read before it keep their readings */
  g_autoptr (ResCsv) mcsv = res_csv_parse (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "sequence_parallel,zero_stage_or_fsdp,recompute,micro_batch,framework,precision,"
    "global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,8,16,1024,16,16384,1024,2,1,yes,ZeRO-1,full,xyz,NeMo,fp8,64,1.0\n",
    -1, "inline", NULL);
  g_autoptr (ResPublishedCase) mc = res_published_case_new (mcsv, 0);
  g_assert_false (mc->ready);
  g_assert_nonnull (strstr (mc->skip_reason, "micro_batch 'xyz'"));
  g_autofree char *me = res_published_explain (mcsv, 0, mc);
  static const char *const unread[] = { "micro_batch", "global_batch", "precision", "notes" };
  for (guint i = 0; i < G_N_ELEMENTS (unread); i++)
    {
      g_autofree char *want = g_strdup_printf ("  %-20s", unread[i]);
      const char *at = strstr (me, want);
      g_assert_nonnull (at);
      const char *eol = strchr (at, '\n');
      g_autofree char *line = g_strndup (at, eol != NULL ? (gsize) (eol - at) : strlen (at));
      if (strstr (line, "-> not read: the row was skipped at this column or before it") == NULL)
        g_error ("explain line '%s' should say it was not read", line);
    }
  assert_explains (me, "-> on");                      /* sequence_parallel yes */
  assert_explains (me, "-> zero1");
  assert_explains (me, "-> full (every layer)");
  g_assert_null (strstr (me, "-> bf16"));
}

/* --explain: every column the mapping reads appears with what it became. */
static void
test_explain (void)
{
  g_autofree char *text = g_strdup (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,framework,"
    "zero_stage_or_fsdp,precision,global_batch,step_time_s\n"
    "7,GPT,NVIDIA Ampere (A100),16,16,1024,16,16384,1024,2,1,torchtitan,HSDP 4x2,bf16,64,1.0\n");
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
  g_autoptr (ResPublishedCase) c = res_published_case_new (csv, 0);
  g_assert_true (res_published_case_predict (c));
  g_autofree char *e = res_published_explain (csv, 0, c);
  static const char *const want[] = {
    "row 7: GPT", "-> cluster preset selene, family a100", "-> stack torchtitan (attention flash2",
    "zero_stage_or_fsdp   HSDP 4x2", "-> hsdp, shard group 4", "sequence_parallel    (empty)",
    "measured 1 s from step_time_s", "prediction: ",
    /* how n_gpus was read, and the measured cell as written (neither was shown) */
    "n_gpus               16                                           -> 16 GPUs",
    "measured             1.0 ",
    /* selene's DGX A100: 8 GPUs on NVLink 3 (300 GB/s a direction), HDR200 beyond */
    "NVLink domain 8 devices (300 GB/s per device), beyond it 25 GB/s per device (su)",
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    if (strstr (e, want[i]) == NULL)
      g_error ("explain lacks '%s':\n%s", want[i], e);
  /* the FP8 recipe it ran: the row's where the precision names one (FP8-CS: tensorwise;
   * FP8-SC: blockwise; float8 rowwise: rowwise), else the stack's (nemo: delayed;
   * hai-llm: DeepSeek-V3's blockwise); NVFP4 with what it keeps in bf16 */
  g_autofree char *fp8 = g_strdup (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,framework,"
    "zero_stage_or_fsdp,precision,global_batch,step_time_s\n"
    "8,GPT,GB200 NVL72,8,16,1024,16,16384,1024,1,1,NeMo,,FP8-CS,64,1.0\n"
    "9,GPT,GB200 NVL72,8,16,1024,16,16384,1024,1,1,NeMo,,fp8,64,1.0\n"
    "10,GPT,H100-SXM-80GB,8,16,1024,16,16384,1024,1,1,NeMo,,FP8-SC,64,1.0\n"
    "11,GPT,H100-SXM-80GB,8,16,1024,16,16384,1024,1,1,torchtitan,,float8 rowwise,64,1.0\n"
    "12,GPT,H800-SXM-80GB,8,16,1024,16,16384,1024,1,1,HAI-LLM,,fp8,64,1.0\n"
    "13,GPT,B200-SXM-180GB,8,16,1024,16,16384,1024,1,1,NeMo,,FP4 (NVFP4),64,1.0\n"
    "15,GPT,H100-SXM-80GB,8,16,1024,16,16384,1024,1,1,NeMo Megatron-Bridge 25.11,,fp8,64,1.0\n");
  g_autoptr (ResCsv) csv8 = res_csv_parse (fp8, -1, "inline", NULL);
  static const char *const want8[] = { "fp8 GEMMs, attention bf16 (tensorwise recipe)",
                                       "fp8 GEMMs, attention bf16 (the stack's delayed recipe)",
                                       "fp8 GEMMs, attention bf16 (blockwise recipe)",
                                       "fp8 GEMMs, attention bf16 (rowwise recipe)",
                                       "fp8 GEMMs, attention bf16 (the stack's blockwise recipe)",
                                       "fp4 (NVFP4 recipe: layer linears in FP4; output layer, "
                                       "router, attention bf16)",
                                       /* a bare fp8 of a Megatron-Bridge table says why it
                                        * reads tensorwise (no delayed recipe there) */
                                       "(tensorwise recipe: not named in the row: "
                                       "Megatron-Bridge's performance scripts offer fp8_cs" };
  for (guint r = 0; r < G_N_ELEMENTS (want8); r++)
    {
      g_autoptr (ResPublishedCase) c8 = res_published_case_new (csv8, r);
      g_assert_true (c8->ready);
      g_autofree char *e8 = res_published_explain (csv8, r, c8);
      if (strstr (e8, want8[r]) == NULL)
        g_error ("explain lacks '%s':\n%s", want8[r], e8);
    }
  /* Megatron-Core's --recompute-modules in a MoE row's recompute cell (rows 712, 715): the
   * attention core is not recomputed (granularity none) and the modules are named, so the
   * explanation does not read as no recompute at all */
  g_autofree char *em = explain_one (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,ep,framework,"
    "precision,micro_batch,global_batch,recompute,step_time_s,moe\n"
    "14,MoE,B200-SXM-180GB,8,4,1024,16,16384,1024,1,1,8,NeMo,bf16,1,64,"
    "\"selective (modules: layernorm, moe_act)\",1.0,experts=8;top_k=2;moe_ffn=512\n");
  assert_explains (em, "-> none; modules recomputed: moe_act,layernorm");
  /* the expert layout the plan ran: ep 8 from the ep column, etp unstated -> the TP
   * degree (1 here), said so */
  assert_explains (em, "-> 8; expert tp 1 (etp not stated: Megatron-Core's default, the TP "
                       "degree)");
  /* the prediction line names every axis's exposed time, expert parallelism's all-to-all
   * too: 8 experts on 8 B200s (EP 8) dispatch and combine over NVLink, which the
   * prediction leaves partly exposed (the line had printed tp, cp, pp and dp only) */
  {
    g_autoptr (ResCsv) cm = res_csv_parse (
      "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,ep,framework,"
      "precision,micro_batch,global_batch,step_time_s,moe\n"
      "20,MoE,B200-SXM-180GB,8,4,1024,16,16384,1024,1,1,8,NeMo,bf16,1,64,1.0,"
      "experts=8;top_k=2;moe_ffn=512\n", -1, "inline", NULL);
    g_autoptr (ResPublishedCase) cmc = res_published_case_new (cm, 0);
    g_assert_true (res_published_case_predict (cmc));
    g_assert_cmpfloat (cmc->predicted_exposed_s[PROG_COMM_EP], >, 0.0);
    g_autofree char *emp = res_published_explain (cm, 0, cmc);
    g_autofree char *want = g_strdup_printf (" / ep %.3g / pp ",
                                             cmc->predicted_exposed_s[PROG_COMM_EP]);
    assert_explains (emp, want);
  }
  /* torchtitan's layer-level AC reads as full recompute of half of each chunk's layers,
   * which the line says (16 blocks: 8 recompute, block method) */
  g_autofree char *ea = explain_one (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,framework,"
    "recompute,precision,global_batch,step_time_s\n"
    "17,GPT,A100-SXM-80GB,8,16,1024,16,16384,1024,1,1,torchtitan,selective (layer),bf16,64,"
    "1.0\n");
  assert_explains (ea, "-> full (8 layers of each chunk, block method; the others keep their "
                       "activations)");
  /* a network cell that leaves part unstated: the NVLink domain line says it is the
   * preset's (DGX Cloud's GB200 rows, rack size not stated) */
  g_autofree char *eg = explain_one (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,framework,"
    "network,precision,global_batch,step_time_s\n"
    "16,GPT,\"GB200 (DGX Cloud, 4 GPUs per node)\",8,16,1024,16,16384,1024,1,1,NeMo,"
    "\"NVLink 5 in a domain (rack size, NVL72, not stated in source)\",bf16,64,1.0\n");
  assert_explains (eg, "NVLink domain 72 devices (900 GB/s per device), beyond it 50 GB/s per "
                       "device (su); the row's network leaves part unstated: the preset's");
  /* a run larger than its preset: the line says the outermost level was repeated
   * (selene: 28 SUs of 20 servers of 8 = 4,480 GPUs; its 28 repeated twice, 56 SUs, hold
   * 8,192: 8,960 places) */
  g_autofree char *big = explain_one (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,framework,"
    "precision,global_batch,step_time_s\n"
    "19,GPT,A100-SXM-80GB,8192,16,1024,16,16384,1024,1,1,Megatron-LM,bf16,8192,1.0\n");
  assert_explains (big, "the run's 8192 GPUs exceed the preset's 4480: its outermost level "
                        "'cluster' repeated to 8960 devices");
  /* a PCIe card's server is no NVLink domain: the line names the level */
  g_autofree char *ep = explain_one (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,framework,"
    "precision,global_batch,step_time_s\n"
    "18,GPT,A100-PCIe-80GB,8,16,1024,16,16384,1024,1,1,NeMo,bf16,64,1.0\n");
  assert_explains (ep, "scale-up domain ('server') 8 devices (32 GB/s per device), beyond it "
                       "25 GB/s per device (cluster)");
  g_assert_null (strstr (ep, "NVLink domain"));
}

/* A one-row CSV with the model, framework, vocab, batch and FLOP-convention cells given. */
static ResPublishedCase *
row_model (const char *model, const char *framework, const char *vocab, const char *batch,
           const char *convention)
{
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "framework,precision,global_batch,step_time_s,flops_convention\n"
    "1,\"%s\",A100-SXM-80GB,8,16,1024,16,%s,1024,1,1,\"%s\",bf16,%s,1.0,\"%s\"\n",
    model, vocab, framework, batch, convention);
  return case_of (text);
}

/* Cells a row leaves empty (results/published.c default_vocab, map_recompute): the GPT-2
 * BPE padded by Megatron-LM (51,200) for GPT models run with Megatron, OPT's 50,272,
 * otherwise a skip that names every missing cell; full recompute where the row's FLOP
 * convention says its runs recomputed. */
static ResPublishedCase *rc_row (const char *recompute, const char *notes);

static void
test_unstated (void)
{
  static const struct { const char *model, *framework; guint64 vocab; } vocab[] = {
    { "GPT-3 175B", "Megatron-LM", 51200 },
    { "GPT 530B", "Megatron-LM (2021)", 51200 },
    { "OPT-175B", "metaseq (FSDP + Megatron TP)", 50272 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (vocab); i++)
    {
      g_autoptr (ResPublishedCase) c = row_model (vocab[i].model, vocab[i].framework, "", "32",
                                                  "");
      if (!c->ready)
        g_error ("'%s': %s", vocab[i].model, c->skip_reason);
      g_assert_cmpuint (c->model->vocab, ==, vocab[i].vocab);
    }
  g_autoptr (ResPublishedCase) neox = row_model ("GPT-NeoX-20B", "GPT-NeoX (Megatron + "
                                                 "DeepSpeed)", "", "32", "");
  g_assert_false (neox->ready);
  g_assert_cmpstr (neox->skip_reason, ==, "missing vocab");
  g_autoptr (ResPublishedCase) both = row_model ("Llama", "torchtitan", "", "", "");
  g_assert_false (both->ready);
  g_assert_cmpstr (both->skip_reason, ==, "missing vocab, global_batch");
  g_autoptr (ResPublishedCase) batch = row_model ("GPT 530B", "Megatron-LM", "", "", "");
  g_assert_cmpstr (batch->skip_reason, ==, "missing global_batch");

  {
    g_autoptr (ResCsv) csv = res_csv_parse ("row_id,model,params_b,gpu_type,n_gpus,"
                                            "tflops_per_gpu\n1,GPT-like 100B+,100,"
                                            "V100-32GB,400,37.5\n", -1, "inline", NULL);
    g_autoptr (ResPublishedCase) shapeless = res_published_case_new (csv, 0);
    g_assert_false (shapeless->ready);
    g_assert_cmpstr (shapeless->skip_reason, ==,
                     "model shape not stated (no n_layers, hidden, n_heads): nothing to predict");
  }
  g_autoptr (ResPublishedCase) plain = row_model ("GPT", "Megatron-LM", "51200", "32", "");
  g_assert_true (plain->ready);
  g_assert_cmpint (plain->plan.recompute, ==, PLAN_RECOMPUTE_NONE);
  g_autoptr (ResPublishedCase) sc21 = row_model (
    "GPT", "Megatron-LM", "51200", "32",
    "Narayanan et al. SC'21: 96*B*s*L*h^2*(1+s/(6h)+V/(16Lh)) per iteration, i.e. INCLUDES "
    "full activation recompute (4 passes)");
  g_assert_true (sc21->ready);
  g_assert_cmpint (sc21->plan.recompute, ==, PLAN_RECOMPUTE_FULL);

  /* Megatron-DeepSpeed's throughput calculator counts 24 x 4 x B s L h^2 (...) only
   * where activations are checkpointed (checkpoint_activations_factor = 4 if
   * args.checkpoint_activations else 3): a convention, recompute cell or notes that
   * says the TFLOP/s used the factor 4 is a run that recomputed every layer (BigScience's
   * Jean Zay benchmarks); 3, said off, or a factor of something else is none */
  static const struct { const char *convention; PlanRecompute want; } factor[] = {
    { "BigScience Megatron-DeepSpeed TFLOPs: 96*B*s*L*h^2*(1+s/6h+V/16Lh) per iteration "
      "(checkpoint-activations factor 4), per GPU", PLAN_RECOMPUTE_FULL },
    { "throughput_calculator with checkpoint_activations_factor = 4", PLAN_RECOMPUTE_FULL },
    { "24 x factor x B s L h^2, the factor of 4 used with activation check-pointing",
      PLAN_RECOMPUTE_FULL },
    { "throughput_calculator with checkpoint_activations_factor = 3", PLAN_RECOMPUTE_NONE },
    { "TFLOPs not with the checkpoint-activations factor 4", PLAN_RECOMPUTE_NONE },
    { "batch grown by a factor 4, checkpointing as the log prints", PLAN_RECOMPUTE_NONE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (factor); i++)
    {
      g_autoptr (ResPublishedCase) f = row_model ("GPT", "Megatron-DeepSpeed", "51200", "32",
                                                  factor[i].convention);
      if (!f->ready)
        g_error ("'%s': %s", factor[i].convention, f->skip_reason);
      if (f->plan.recompute != factor[i].want)
        g_error ("'%s': recompute %d, want %d", factor[i].convention, f->plan.recompute,
                 factor[i].want);
    }
  g_autoptr (ResPublishedCase) cell = rc_row ("not stated (the reported TFLOPs reproduce with "
                                              "the checkpoint-activations factor 4)", "");
  g_assert_true (cell->ready);
  g_assert_cmpint (cell->plan.recompute, ==, PLAN_RECOMPUTE_FULL);
  g_autoptr (ResPublishedCase) note = rc_row ("", "TFLOPs from the log (checkpoint-activations "
                                              "factor 4).");
  g_assert_cmpint (note->plan.recompute, ==, PLAN_RECOMPUTE_FULL);
  /* the factor at a sentence's end ("factor 4.") */
  g_autoptr (ResPublishedCase) end = rc_row ("", "Reported TFLOP/s per GPU computed as in "
                                             "Megatron-DeepSpeed with checkpoint-activations "
                                             "factor 4.");
  g_assert_cmpint (end->plan.recompute, ==, PLAN_RECOMPUTE_FULL);
  /* the cell's own factor 3 decides over the notes' 4 */
  g_autoptr (ResPublishedCase) mixed = rc_row ("not stated (checkpoint-activations factor 3 "
                                               "reproduces the TFLOPs)", "An earlier run: "
                                               "checkpoint-activations factor 4.");
  g_assert_cmpint (mixed->plan.recompute, ==, PLAN_RECOMPUTE_NONE);
}

/* One row of the small GPT on 16 A100s with the given recompute cell and notes. */
static ResPublishedCase *
rc_row (const char *recompute, const char *notes)
{
  g_autofree char *rc = csv_cell (recompute);
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "recompute,notes,global_batch,step_time_s\n"
    "1,GPT,A100-SXM-80GB,16,16,1024,16,16384,1024,1,1,\"%s\",\"%s\",64,1.0\n",
    rc, notes);
  return case_of (text);
}

/* results/published.c map_recompute: every spelling with its reading. */
static void
test_recompute (void)
{
  static const struct { const char *text; PlanRecompute want; } rows[] = {
    { "full", PLAN_RECOMPUTE_FULL },
    { "full (activation checkpointing)", PLAN_RECOMPUTE_FULL },
    { "selective", PLAN_RECOMPUTE_SELECTIVE },
    { "none", PLAN_RECOMPUTE_NONE },
    { "no", PLAN_RECOMPUTE_NONE },
    /* checkpointing named without a kind: whole blocks */
    { "activation checkpointing", PLAN_RECOMPUTE_FULL },
    { "Gradient checkpointing", PLAN_RECOMPUTE_FULL },
    { "yes", PLAN_RECOMPUTE_FULL },
    { "True", PLAN_RECOMPUTE_FULL },
    { "enabled", PLAN_RECOMPUTE_FULL },
    /* a label, then the value by the same rules */
    { "AC: full", PLAN_RECOMPUTE_FULL },
    { "AC: selective", PLAN_RECOMPUTE_SELECTIVE },
    { "ac: none", PLAN_RECOMPUTE_NONE },
    { "recompute = full", PLAN_RECOMPUTE_FULL },
    { "activation checkpointing: selective", PLAN_RECOMPUTE_SELECTIVE },
    /* negated: checkpointing named only to say it was off */
    { "none (paper: 8K-token pretraining ran without activation checkpointing)",
      PLAN_RECOMPUTE_NONE },
    { "no activation checkpointing", PLAN_RECOMPUTE_NONE },
    { "selective activation checkpointing", PLAN_RECOMPUTE_SELECTIVE },
    /* said to be off (these were skipped as not recognised) */
    { "off", PLAN_RECOMPUTE_NONE },
    { "disabled", PLAN_RECOMPUTE_NONE },
    { "AC off", PLAN_RECOMPUTE_NONE },
    { "without recompute", PLAN_RECOMPUTE_NONE },
    { "activation checkpointing disabled", PLAN_RECOMPUTE_NONE },
    /* Megatron's flag as written, with its value after a space */
    { "--recompute-granularity full", PLAN_RECOMPUTE_FULL },
    { "recompute-granularity selective", PLAN_RECOMPUTE_SELECTIVE },
    { "recompute_granularity: full", PLAN_RECOMPUTE_FULL },
    /* SAC (selective activation checkpointing), op-level where it says so */
    { "SAC", PLAN_RECOMPUTE_SELECTIVE },
    { "op-level SAC", PLAN_RECOMPUTE_SELECTIVE_OP },
    { "selective (op-level)", PLAN_RECOMPUTE_SELECTIVE_OP },
    /* core_attn is the attention core, which selective recomputes; Megatron's uniform
     * method (full granularity only) with its default of 1 layer a chunk: every layer */
    { "core_attn", PLAN_RECOMPUTE_SELECTIVE },
    { "uniform", PLAN_RECOMPUTE_FULL },
    { "activation recomputation", PLAN_RECOMPUTE_FULL },
    { "selective (core attention)", PLAN_RECOMPUTE_SELECTIVE },
    /* a label and its value after a space ("AC full" was skipped); torchtitan's "op" */
    { "AC full", PLAN_RECOMPUTE_FULL },
    { "AC none", PLAN_RECOMPUTE_NONE },
    { "AC selective", PLAN_RECOMPUTE_SELECTIVE },
    { "AC op", PLAN_RECOMPUTE_SELECTIVE_OP },
    { "AC: op", PLAN_RECOMPUTE_SELECTIVE_OP },
    { "AC op (torchtitan)", PLAN_RECOMPUTE_SELECTIVE_OP },
    { "activation recomputation: selective", PLAN_RECOMPUTE_SELECTIVE },
    /* checkpointing named and then said off (these read full) */
    { "gradient checkpointing: off", PLAN_RECOMPUTE_NONE },
    { "activation checkpointing off", PLAN_RECOMPUTE_NONE },
    /* yes/no answers: "AC", "y", a check mark -> full; "n", a cross, "disable" -> none */
    { "AC", PLAN_RECOMPUTE_FULL },
    { "y", PLAN_RECOMPUTE_FULL },
    { "\xe2\x9c\x93", PLAN_RECOMPUTE_FULL },
    { "n", PLAN_RECOMPUTE_NONE },
    { "\xe2\x9c\x97", PLAN_RECOMPUTE_NONE },
    { "disable", PLAN_RECOMPUTE_NONE },
    /* every layer recomputed: full */
    { "every layer", PLAN_RECOMPUTE_FULL },
    { "all layers", PLAN_RECOMPUTE_FULL },
    /* the attention core and the uniform method wherever named */
    { "--recompute-modules core_attn", PLAN_RECOMPUTE_SELECTIVE },
    { "recompute core attention", PLAN_RECOMPUTE_SELECTIVE },
    { "recompute_method=uniform, recompute_num_layers=1", PLAN_RECOMPUTE_FULL },
    { "Selective op AC", PLAN_RECOMPUTE_SELECTIVE_OP },
    /* unstated: none */
    { "\xe2\x80\x94", PLAN_RECOMPUTE_NONE },
    { "N.A.", PLAN_RECOMPUTE_NONE },
    /* JAX's policies by name: nothing_saveable saves nothing, the whole layer recomputed
     * (it was read as none by its leading "no"); everything_saveable recomputes nothing;
     * "remat" / "remat_policy" as labels (MaxText's remat_policy full passes policy None:
     * everything recomputed); these were not recognised */
    { "nothing_saveable", PLAN_RECOMPUTE_FULL },
    { "jax.checkpoint_policies.nothing_saveable", PLAN_RECOMPUTE_FULL },
    { "everything_saveable", PLAN_RECOMPUTE_NONE },
    { "remat full", PLAN_RECOMPUTE_FULL },
    { "remat_policy=full", PLAN_RECOMPUTE_FULL },
    { "remat: none", PLAN_RECOMPUTE_NONE },
    /* MaxText's remat_policy values by what each saves (remat_policies in
     * results/published.c; these were not recognised): minimal keeps every projection
     * output and recomputes the attention core -> selective; with the attention output
     * kept too, only element-wise ops -> none; the save_* policies recompute the MLP's
     * input projections with the rest -> full, as the shipped MaxText rows' "full
     * (MaxText remat_policy save_qkv_proj: ...)" reads */
    { "remat_policy=minimal", PLAN_RECOMPUTE_SELECTIVE },
    { "remat_policy: minimal", PLAN_RECOMPUTE_SELECTIVE },
    { "remat_policy: save_qkv_proj", PLAN_RECOMPUTE_FULL },
    { "remat: save_dot_except_mlpwi", PLAN_RECOMPUTE_FULL },
    { "save_dot_except_mlp", PLAN_RECOMPUTE_FULL },
    { "remat_policy=save_dot_with_context_except_mlp", PLAN_RECOMPUTE_FULL },
    { "remat_policy=save_out_proj", PLAN_RECOMPUTE_FULL },
    { "remat_policy=qkv_proj_offloaded", PLAN_RECOMPUTE_FULL },
    { "remat_policy=minimal_offloaded", PLAN_RECOMPUTE_SELECTIVE },
    { "remat_policy=minimal_with_context", PLAN_RECOMPUTE_NONE },
    { "remat_policy=minimal_flash", PLAN_RECOMPUTE_NONE },
    { "remat_policy: full", PLAN_RECOMPUTE_FULL },
    { "jax.checkpoint_policies.checkpoint_dots_with_no_batch_dims", PLAN_RECOMPUTE_SELECTIVE },
    /* Pax's CHECKPOINT_POLICY names (praxis AutodiffCheckpointType; JAX-Toolbox's tables
     * print them), the same JAX policies (not recognised before) */
    { "CHECKPOINT_POLICY = SAVE_DOT_WITH_NO_BATCH_DIM", PLAN_RECOMPUTE_SELECTIVE },
    { "save_dot_with_no_batch_dims", PLAN_RECOMPUTE_SELECTIVE },
    { "CHECKPOINT_POLICY = SAVE_DOT_ONLY", PLAN_RECOMPUTE_SELECTIVE },
    { "CHECKPOINT_POLICY = SAVE_QKV_OUT_PROJ", PLAN_RECOMPUTE_FULL },
    { "CHECKPOINT_POLICY = SAVE_EVERYTHING", PLAN_RECOMPUTE_NONE },
    /* NeMo 1's yaml key, and its null: no checkpointing (not recognised) */
    { "activations_checkpoint_granularity: null", PLAN_RECOMPUTE_NONE },
    { "activations_checkpoint_granularity: selective", PLAN_RECOMPUTE_SELECTIVE },
    /* a null granularity beside a method and a count: none (the count read full) */
    { "activations_checkpoint_granularity: null, activations_checkpoint_method: block, "
      "activations_checkpoint_num_layers: 8", PLAN_RECOMPUTE_NONE },
    { "recompute_granularity: null; recompute_method: uniform; recompute_num_layers: 1",
      PLAN_RECOMPUTE_NONE },
    /* ... but not a baseline's or another row's null: the cell's own leading kind, or the
     * run's own granularity after it, decides (each read none) */
    { "full; recompute_granularity none in the baseline", PLAN_RECOMPUTE_FULL },
    { "selective (baseline: recompute_granularity null)", PLAN_RECOMPUTE_SELECTIVE },
    /* ... and a leading kind whose own clause names the baseline or the paper is theirs,
     * not the run's: the run's own null granularity after it decides (each read full or
     * selective, as the leading kind; none before that rule). "This row" is the row's own,
     * not another row's */
    { "full in the baseline; this run: recompute_granularity null", PLAN_RECOMPUTE_NONE },
    { "selective in the paper; recompute_granularity: null here (fits without)",
      PLAN_RECOMPUTE_NONE },
    { "full in the baseline; this row: recompute_granularity null", PLAN_RECOMPUTE_NONE },
    { "full (MaxText remat_policy save_qkv_proj: only the query/key/value projection outputs "
      "are saved, the rest of each layer is recomputed; full is the nearest the mapping has)",
      PLAN_RECOMPUTE_FULL },
    /* short and config spellings of checkpointing (not recognised before) */
    { "grad checkpointing", PLAN_RECOMPUTE_FULL },
    { "activation ckpt", PLAN_RECOMPUTE_FULL },
    { "checkpoint_activations", PLAN_RECOMPUTE_FULL },
    { "gradient_checkpointing=True", PLAN_RECOMPUTE_FULL },
    /* Colossal-AI's examples' flag (refused: not recognised) */
    { "gradient_checkpoint=True", PLAN_RECOMPUTE_FULL },
    { "grad_checkpoint: False", PLAN_RECOMPUTE_NONE },
    { "activation_checkpointing: false", PLAN_RECOMPUTE_NONE },
    /* the short and config spellings as labels: the yes/no value after a space, colon or
     * '=' (these read full whatever the value said, as checkpointing named) */
    { "Activation Ckpt FALSE", PLAN_RECOMPUTE_NONE },
    { "activation ckpt: false", PLAN_RECOMPUTE_NONE },
    { "activation ckpt: no", PLAN_RECOMPUTE_NONE },
    { "activation ckpt=0", PLAN_RECOMPUTE_NONE },
    { "activation ckpt: disabled", PLAN_RECOMPUTE_NONE },
    { "activation ckpt off", PLAN_RECOMPUTE_NONE },
    { "Activation checkpoint: False", PLAN_RECOMPUTE_NONE },
    { "grad ckpt false", PLAN_RECOMPUTE_NONE },
    { "gradient ckpt: off", PLAN_RECOMPUTE_NONE },
    { "checkpoint_activations=False", PLAN_RECOMPUTE_NONE },
    { "checkpoint activations: no", PLAN_RECOMPUTE_NONE },
    { "activation checkpointing: False", PLAN_RECOMPUTE_NONE },
    { "gradient_checkpointing: FALSE", PLAN_RECOMPUTE_NONE },
    { "activation ckpt: true", PLAN_RECOMPUTE_FULL },
    { "activation ckpt: on", PLAN_RECOMPUTE_FULL },
    { "activation ckpt=1", PLAN_RECOMPUTE_FULL },
    { "Activation Ckpt TRUE", PLAN_RECOMPUTE_FULL },
    { "checkpoint_activations: True", PLAN_RECOMPUTE_FULL },
    { "activation ckpt: enabled", PLAN_RECOMPUTE_FULL },
    { "activation ckpt: selective", PLAN_RECOMPUTE_SELECTIVE },
    { "checkpoint every layer", PLAN_RECOMPUTE_FULL },
    /* "checkpoint" alone as a label (not recognised before) */
    { "checkpoint=False", PLAN_RECOMPUTE_NONE },
    { "checkpoint: true", PLAN_RECOMPUTE_FULL },
    /* a yes/no answer with a qualifier (not recognised before): off -> none whatever
     * the qualifier explains; yes -> the kind the qualifier names, else full as "yes" */
    { "off (checkpoint=False)", PLAN_RECOMPUTE_NONE },
    /* the column's name as the qualifier of an off answer (llm-foundry's H100 table,
     * audit of 7 Dec: read as full by the name); a yes with it stays full */
    { "False (Activation Checkpointing column)", PLAN_RECOMPUTE_NONE },
    { "True (Activation Checkpointing column)", PLAN_RECOMPUTE_FULL },
    { "false (see notes)", PLAN_RECOMPUTE_NONE },
    { "disabled; see notes", PLAN_RECOMPUTE_NONE },
    { "Off, as in the paper", PLAN_RECOMPUTE_NONE },
    { "yes (full)", PLAN_RECOMPUTE_FULL },
    { "Yes, full recompute", PLAN_RECOMPUTE_FULL },
    { "yes (activation re-materialization)", PLAN_RECOMPUTE_FULL },
    { "yes (see notes)", PLAN_RECOMPUTE_FULL },
    { "true (full)", PLAN_RECOMPUTE_FULL },
    { "on - full", PLAN_RECOMPUTE_FULL },
    { "Enabled; every layer", PLAN_RECOMPUTE_FULL },
    { "yes (selective)", PLAN_RECOMPUTE_SELECTIVE },
    { "Yes (selective, attention core)", PLAN_RECOMPUTE_SELECTIVE },
    { "activation ckpt: False (see notes)", PLAN_RECOMPUTE_NONE },
    { "AC: yes (full)", PLAN_RECOMPUTE_FULL },
    /* a qualifier with no word is the bare yes (they were skipped: "says yes, then off") */
    { "yes ()", PLAN_RECOMPUTE_FULL },
    { "yes ,", PLAN_RECOMPUTE_FULL },
    { "yes (", PLAN_RECOMPUTE_FULL },
    { "Yes ( )", PLAN_RECOMPUTE_FULL },
    { "true;", PLAN_RECOMPUTE_FULL },
    /* the attention alone recomputed is Megatron's selective (they read full, as "yes") */
    { "on (attention only)", PLAN_RECOMPUTE_SELECTIVE },
    { "yes (attention only)", PLAN_RECOMPUTE_SELECTIVE },
    { "enabled (attn only)", PLAN_RECOMPUTE_SELECTIVE },
    { "on, attention only", PLAN_RECOMPUTE_SELECTIVE },
    { "true - the attention", PLAN_RECOMPUTE_SELECTIVE },
    /* FlashAttention is a kernel: the bare yes */
    { "yes (flash attention)", PLAN_RECOMPUTE_FULL },
    /* the kind after the one the run did not use (skipped as "says yes, then off") */
    { "yes (not full, selective)", PLAN_RECOMPUTE_SELECTIVE },
    { "yes (no full recompute; selective)", PLAN_RECOMPUTE_SELECTIVE },
    { "yes (not full but selective)", PLAN_RECOMPUTE_SELECTIVE },
    { "yes (not full, attention only)", PLAN_RECOMPUTE_SELECTIVE },
    { "yes (not selective, full)", PLAN_RECOMPUTE_FULL },
    /* a kind said off: the other kind where the cell names it, else none ("full recompute
     * disabled" read full by its first word, "no full recompute (selective only)" none by
     * its "no"); "w/o" says off (not recognised) */
    { "full recompute disabled", PLAN_RECOMPUTE_NONE },
    { "no full recompute (selective only)", PLAN_RECOMPUTE_SELECTIVE },
    { "w/o AC", PLAN_RECOMPUTE_NONE },
    /* "without" with nothing after it: recompute, the cell's subject, said off (not
     * recognised once "without" read only before a recompute word: regression audit) */
    { "without", PLAN_RECOMPUTE_NONE },
    { "trained without", PLAN_RECOMPUTE_NONE },
    { "without (all activations kept)", PLAN_RECOMPUTE_NONE },
    /* offloading said off leaves the kind */
    { "full (no CPU offload)", PLAN_RECOMPUTE_FULL },
    /* "w/o" negates only the recompute words it precedes: before anything else it leaves
     * the kind (these read none) */
    { "checkpoint-activations (w/o partition-activations)", PLAN_RECOMPUTE_FULL },
    { "activation checkpointing w/o TE", PLAN_RECOMPUTE_FULL },
    { "uniform full (w/o TE)", PLAN_RECOMPUTE_FULL },
    { "w/o activation checkpointing", PLAN_RECOMPUTE_NONE },
    { "w/o recompute", PLAN_RECOMPUTE_NONE },
    /* "without" likewise (these read none) ... */
    { "activation checkpointing without TE", PLAN_RECOMPUTE_FULL },
    { "checkpoint-activations (without partition-activations)", PLAN_RECOMPUTE_FULL },
    { "without recompute", PLAN_RECOMPUTE_NONE },
    { "without activation checkpointing", PLAN_RECOMPUTE_NONE },
    /* ... and the short words for recompute after "w/o" are recompute's (skipped) */
    { "w/o ckpt", PLAN_RECOMPUTE_NONE },
    { "w/o act ckpt", PLAN_RECOMPUTE_NONE },
    { "w/o act. checkpointing", PLAN_RECOMPUTE_NONE },
    { "w/o recomp", PLAN_RECOMPUTE_NONE },
    { "w/o full recompute", PLAN_RECOMPUTE_NONE },
    /* offloading said off or not used in other words (skipped as offloading without a
     * layer count) */
    { "full (w/o CPU offload)", PLAN_RECOMPUTE_FULL },
    { "full, offloading not used", PLAN_RECOMPUTE_FULL },
    { "full (CPU offload was not needed)", PLAN_RECOMPUTE_FULL },
    { "full recompute instead of CPU offload", PLAN_RECOMPUTE_FULL },
    /* ... and beside a kind other than "full" or a yes (each skipped as offloading without
     * a layer count) */
    { "activation checkpointing (w/o CPU offload)", PLAN_RECOMPUTE_FULL },
    { "selective (w/o CPU offload)", PLAN_RECOMPUTE_SELECTIVE },
    { "selective, CPU offload not used", PLAN_RECOMPUTE_SELECTIVE },
    { "yes (no offloading)", PLAN_RECOMPUTE_FULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = rc_row (rows[i].text, "");
      if (!c->ready || c->plan.recompute != rows[i].want)
        g_error ("'%s': recompute %d, expected %d (%s)", rows[i].text, c->plan.recompute,
                 rows[i].want, c->skip_reason ? c->skip_reason : "");
    }
  /* Megatron's method with its count, and every N-th layer (torchtitan's layer AC), on
   * the 16-layer, one-chunk row: block N -> the first N layers recomputed (these were
   * skipped, or "full (block, 4 layers)" read as every layer); uniform N -> checkpoints of
   * N layers; every N-th -> recompute_every N, which plan_resolve turns into the block
   * method over floor(16 / N) layers (8 at N = 2, 4 at N = 4) (these were not recognised, "selective_ac_option 2"
   * was read as selective and "AC every 2 layers" as every layer); a transformer block
   * in prose is no method */
  static const struct { const char *text; PlanRecomputeMethod method; int layers, every; } m[] = {
    { "--recompute-method block --recompute-num-layers 4", PLAN_RECOMPUTE_BLOCK, 4, 0 },
    { "block, 4 layers", PLAN_RECOMPUTE_BLOCK, 4, 0 },
    { "full (block, 4 layers)", PLAN_RECOMPUTE_BLOCK, 4, 0 },
    /* another row's null granularity beside them is not this run's, after "full" or
     * without it (read none) */
    { "full (recompute_method block, recompute_num_layers 4; granularity null in the 8B row)",
      PLAN_RECOMPUTE_BLOCK, 4, 0 },
    { "recompute_method block, recompute_num_layers 4; granularity null in the 8B row",
      PLAN_RECOMPUTE_BLOCK, 4, 0 },
    /* ... nor the paper's (read none) */
    { "recompute_method block, recompute_num_layers 4; granularity null in the paper",
      PLAN_RECOMPUTE_BLOCK, 4, 0 },
    { "activations_checkpoint_method block, activations_checkpoint_num_layers 4",
      PLAN_RECOMPUTE_BLOCK, 4, 0 },
    { "full, uniform, recompute_num_layers=2", PLAN_RECOMPUTE_UNIFORM, 2, 0 },
    /* Megatron-LM's and GPT-NeoX's own --checkpoint-num-layers: every layer, in units of
     * N (GLM-130B's Table 11; it read as the block method over 1 layer of each chunk, the
     * other 15 stored), not NeMo's activations_checkpoint_num_layers above */
    { "full (Table 11: checkpoint_activations True, checkpoint_num_layers 1, "
      "partition_activations True)", PLAN_RECOMPUTE_UNIFORM, 1, 0 },
    { "full (--checkpoint-activations --checkpoint-num-layers 2)", PLAN_RECOMPUTE_UNIFORM, 2, 0 },
    { "every other layer", PLAN_RECOMPUTE_BLOCK, 8, 2 },
    { "activation checkpointing every 2 layers", PLAN_RECOMPUTE_BLOCK, 8, 2 },
    { "AC every 4th layer", PLAN_RECOMPUTE_BLOCK, 4, 4 },
    { "selective_ac_option 2", PLAN_RECOMPUTE_BLOCK, 8, 2 },
    { "full (every transformer block wrapped)", PLAN_RECOMPUTE_UNIFORM, 1, 0 },
    /* full recompute of N layers by count (skipped as ambiguous or not recognised, or
     * read as every layer, before): the block method over the first N, as Megatron's
     * block method and YaFSDP's num-ckpt-layers checkpoint them; "N of M" counts over the
     * model (M its layers), a bare N per chunk (one chunk here) */
    { "activation checkpointing on 5 of 16 layers", PLAN_RECOMPUTE_BLOCK, 5, 0 },
    { "num-ckpt-layers 6", PLAN_RECOMPUTE_BLOCK, 6, 0 },
    { "partial (6 layers)", PLAN_RECOMPUTE_BLOCK, 6, 0 },
    { "full (10 of 16 layers)", PLAN_RECOMPUTE_BLOCK, 10, 0 },
    { "full, 6 layers", PLAN_RECOMPUTE_BLOCK, 6, 0 },
    { "activation checkpointing (8 of 16 layers)", PLAN_RECOMPUTE_BLOCK, 8, 0 },
    { "full (10 layers)", PLAN_RECOMPUTE_BLOCK, 10, 0 },
    /* all of them: every layer, Megatron's default uniform unit of 1 */
    { "full (16 of 16 layers)", PLAN_RECOMPUTE_UNIFORM, 1, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (m); i++)
    {
      g_autoptr (ResPublishedCase) c = rc_row (m[i].text, "");
      if (!c->ready || c->plan.recompute != PLAN_RECOMPUTE_FULL
          || c->plan.recompute_method != m[i].method || c->plan.recompute_num_layers != m[i].layers
          || c->plan.recompute_every != m[i].every)
        g_error ("'%s': recompute %d method %d layers %d every %d (%s)", m[i].text,
                 c->plan.recompute, c->plan.recompute_method, c->plan.recompute_num_layers,
                 c->plan.recompute_every, c->skip_reason ? c->skip_reason : "");
    }
  /* every n-th block with n a letter (IBM's FSDP blog: read as Megatron's selective,
   * out of memory with no recompute time): skipped, saying n is not stated; "every nth
   * layer" alike; a number still reads */
  static const char *const nth[] = {
    "Selective (checkpoint every n-th transformer block, FSDP AC wrapper)",
    "AC every nth layer", "checkpoint every k-th block" };
  for (guint i = 0; i < G_N_ELEMENTS (nth); i++)
    {
      g_autoptr (ResPublishedCase) c = rc_row (nth[i], "");
      if (c->ready || strstr (c->skip_reason, "every n-th block checkpointed whole") == NULL)
        g_error ("'%s': ready %d (%s)", nth[i], c->ready, c->skip_reason ? c->skip_reason : "");
    }
  /* ... but n stated, a cell that says none first, or another framework's default: not
   * (the regression audit of 7 Dec skipped these) */
  static const struct { const char *text; PlanRecompute want; } nth_ok[] = {
    { "full, every nth layer (n=2)", PLAN_RECOMPUTE_FULL },
    { "none (unlike fms-fsdp's every n-th block default)", PLAN_RECOMPUTE_NONE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (nth_ok); i++)
    {
      g_autoptr (ResPublishedCase) c = rc_row (nth_ok[i].text, "");
      if (!c->ready || c->plan.recompute != nth_ok[i].want)
        g_error ("'%s': ready %d recompute %d (%s)", nth_ok[i].text, c->ready,
                 c->plan.recompute, c->skip_reason ? c->skip_reason : "");
    }
  /* a count of at least the most layers a chunk holds recomputes every layer, as
   * Megatron's block method does; where the layers do not divide (14 on 4 stages: 4 at
   * most) a smaller count is the block method (the count was refused against the floor,
   * "1 layers a chunk, more than the 0 each of the 128 model chunks holds", for 126 layers
   * on 16 x 8 chunks; audit of 7 Dec) */
  static const struct { const char *count; PlanRecomputeMethod method; int layers; } un[] = {
    { "full, 4 layers", PLAN_RECOMPUTE_UNIFORM, 1 },
    { "full, 9 layers", PLAN_RECOMPUTE_UNIFORM, 1 },
    { "full, 3 layers", PLAN_RECOMPUTE_BLOCK, 3 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (un); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "recompute,global_batch,step_time_s\n"
        "1,GPT,A100-SXM-80GB,16,14,1024,16,16384,1024,1,4,\"%s\",64,1.0\n", un[i].count);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (!c->ready || c->plan.recompute != PLAN_RECOMPUTE_FULL
          || c->plan.recompute_method != un[i].method
          || c->plan.recompute_num_layers != un[i].layers)
        g_error ("'%s' on 14 layers, pp 4: method %d layers %d (%s)", un[i].count,
                 c->plan.recompute_method, c->plan.recompute_num_layers,
                 c->skip_reason ? c->skip_reason : "");
    }
  /* the count in the notes where the cell says only "full" (YaFSDP's Llama 2 70B row:
   * "activation checkpointing on 10 of 80 layers"; it was every layer, +35%) */
  g_autoptr (ResPublishedCase) from_notes = rc_row ("full", "activation checkpointing on 10 of "
                                                    "16 layers (num-ckpt-layers 10)");
  g_assert_true (from_notes->ready);
  g_assert_cmpint (from_notes->plan.recompute_method, ==, PLAN_RECOMPUTE_BLOCK);
  g_assert_cmpint (from_notes->plan.recompute_num_layers, ==, 10);
  g_assert_nonnull (from_notes->recompute_why);
  /* a model's "N layers" in notes is no checkpoint count */
  g_autoptr (ResPublishedCase) shape_notes = rc_row ("full", "activation checkpointing; 16 "
                                                     "layers");
  g_assert_true (shape_notes->ready);
  g_assert_cmpint (shape_notes->plan.recompute_num_layers, ==, 1);
  g_assert_cmpint (shape_notes->plan.recompute_method, ==, PLAN_RECOMPUTE_UNIFORM);
  /* a count the model cannot hold is skipped, quoting the whole cell; a label's value
   * skipped is quoted with its label ("AC: partial", not "partial") */
  g_autoptr (ResPublishedCase) too_many = rc_row ("full (20 of 32 layers)", "");
  g_assert_false (too_many->ready);
  g_assert_nonnull (strstr (too_many->skip_reason, "'full (20 of 32 layers)'"));
  g_autoptr (ResPublishedCase) over = rc_row ("full, 20 layers", "");
  g_assert_false (over->ready);
  g_assert_nonnull (strstr (over->skip_reason, "'full, 20 layers'"));
  g_autoptr (ResPublishedCase) ac_partial = rc_row ("AC: partial", "");
  g_assert_false (ac_partial->ready);
  g_assert_nonnull (strstr (ac_partial->skip_reason, "recompute 'AC: partial'"));
  /* over 2 pipeline stages, "N of M" shares evenly among the chunks (8 of 16 -> 4 a
   * chunk); an odd share is skipped with a hint */
  static const struct { const char *text; int layers; } pp2[] = {
    { "activation checkpointing on 8 of 16 layers", 4 },
    { "full, 3 layers", 3 },
    { "activation checkpointing on 5 of 16 layers", -1 },
    /* all of the model's layers, however said: every layer (0 here: the uniform method
     * over every layer, no block count); "full, 16 layers" and "full (all 16 layers)"
     * were read as 16 a chunk and refused on this 2-stage row */
    { "full, 16 layers", 0 },
    { "full recompute (all 16 layers)", 0 },
    /* "all" elsewhere in the cell, or inside a word, is no such count */
    { "full, 3 layers (all stages)", 3 },
    { "full, 3 layers, small micro-batch", 3 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (pp2); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "recompute,global_batch,step_time_s\n"
        "1,GPT,A100-SXM-80GB,16,16,1024,16,16384,1024,1,2,\"%s\",64,1.0\n", pp2[i].text);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (pp2[i].layers < 0)
        {
          g_assert_false (c->ready);
          g_assert_nonnull (strstr (c->skip_reason, "do not share evenly"));
          continue;
        }
      if (!c->ready)
        g_error ("'%s': %s", pp2[i].text, c->skip_reason);
      if (pp2[i].layers == 0)
        {
          g_assert_cmpint (c->plan.recompute, ==, PLAN_RECOMPUTE_FULL);
          g_assert_cmpint (c->plan.recompute_method, !=, PLAN_RECOMPUTE_BLOCK);
          continue;
        }
      g_assert_cmpint (c->plan.recompute_method, ==, PLAN_RECOMPUTE_BLOCK);
      g_assert_cmpint (c->plan.recompute_num_layers, ==, pp2[i].layers);
    }
  /* the policy read is said in the explain output; MaxText's custom policy is skipped */
  g_autoptr (ResPublishedCase) minimal = rc_row ("remat_policy=minimal", "");
  g_assert_nonnull (minimal->recompute_why);
  g_assert_nonnull (strstr (minimal->recompute_why, "selective the nearest"));
  g_autoptr (ResPublishedCase) custom = rc_row ("remat_policy=custom", "");
  g_assert_false (custom->ready);
  g_assert_nonnull (strstr (custom->skip_reason, "custom remat policy"));
  /* ambiguous or not modelled: a skip that says why and what to write */
  g_autoptr (ResPublishedCase) partial = rc_row ("partial", "");
  g_assert_false (partial->ready);
  g_assert_nonnull (strstr (partial->skip_reason, "recompute 'partial' is ambiguous"));
  g_assert_nonnull (strstr (partial->skip_reason, "hint:"));
  g_autoptr (ResPublishedCase) offload = rc_row ("offload", "");
  g_assert_false (offload->ready);
  g_assert_nonnull (strstr (offload->skip_reason, "activation offloading without a layer "
                                                  "count"));
  g_assert_nonnull (strstr (offload->skip_reason, "hint:"));
  /* ... also beside full (it was read as full): the offload rule is the cell's */
  g_autoptr (ResPublishedCase) full_off = rc_row ("full AC + CPU offload", "");
  g_assert_false (full_off->ready);
  g_assert_nonnull (strstr (full_off->skip_reason, "activation offloading without a layer "
                                                   "count"));
  /* Megatron-Core's CPU offloading with its layer count: no recompute, N layers' activations
   * in host memory (the 16-layer model of rc_row: 0 < N < 16) */
  static const struct { const char *text; int layers; } off[] = {
    { "none; activations of 5 layers offloaded to host memory (cpu_offloading_num_layers=5)", 5 },
    { "cpu_offloading_num_layers: 12 (activations offloaded)", 12 },
    { "activation offload, 3 layers", 3 },
    { "CPU offloading of 1 layer", 1 },
    /* the label as written for Megatron's key, alone or after a "not stated" (Together AI's
     * reports: refused, or dropped without a word; audit of 7 Dec) */
    { "CPU Offloading Layers: 5", 5 },
    { "not stated (no activation checkpointing); CPU Offloading Layers: 5", 5 },
    { "cpu-offloading-num-layers 4", 4 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (off); i++)
    {
      g_autoptr (ResPublishedCase) c = rc_row (off[i].text, "");
      if (!c->ready || c->plan.recompute != PLAN_RECOMPUTE_NONE
          || c->plan.cpu_offload_layers != off[i].layers)
        g_error ("'%s': ready %d, recompute %d, offloaded layers %d, expected %d (%s)",
                 off[i].text, c->ready, c->plan.recompute, c->plan.cpu_offload_layers,
                 off[i].layers, c->skip_reason ? c->skip_reason : "");
    }
  /* a count of 0 is no offloading: the kind beside it stands (it was refused as
   * offloading without a layer count) */
  g_autoptr (ResPublishedCase) zero_off = rc_row ("selective; CPU Offloading Layers: 0", "");
  g_assert_true (zero_off->ready);
  g_assert_cmpint (zero_off->plan.recompute, ==, PLAN_RECOMPUTE_SELECTIVE);
  g_assert_cmpint (zero_off->plan.cpu_offload_layers, ==, 0);
  /* as many layers as the model has: Megatron refuses it, and so does the plan */
  g_autoptr (ResPublishedCase) all = rc_row ("activations of 16 layers offloaded", "");
  g_assert_false (all->ready);
  g_assert_nonnull (strstr (all->skip_reason, "at most 15"));
  /* Megatron's block method recomputes only --recompute-num-layers layers of a stage;
   * layer-level SAC recomputes some blocks: both skipped rather than read as all */
  g_autoptr (ResPublishedCase) block = rc_row ("block", "");
  g_assert_false (block->ready);
  g_assert_nonnull (strstr (block->skip_reason, "hint:"));
  g_autoptr (ResPublishedCase) lsac = rc_row ("layer SAC", "");
  g_assert_false (lsac->ready);
  g_autoptr (ResPublishedCase) odd = rc_row ("sometimes", "");
  g_assert_false (odd->ready);
  g_assert_cmpstr (odd->skip_reason, ==, "recompute 'sometimes' not recognised");
  /* an answer whose qualifier says the other answer: skipped, not read either way; a word
   * that only starts with an answer is no answer */
  static const char *const contrary[] = { "yes (none)", "yes (checkpoint=False)",
                                          "Yes, no recompute", "off (full)",
                                          "false (selective)", "yes (off, see notes)",
                                          "yes (not full, none)" };
  for (guint i = 0; i < G_N_ELEMENTS (contrary); i++)
    {
      g_autoptr (ResPublishedCase) c = rc_row (contrary[i], "");
      if (c->ready || strstr (c->skip_reason, "then") == NULL)
        g_error ("'%s': ready %d (%s), expected a skip", contrary[i], c->ready,
                 c->skip_reason ? c->skip_reason : "");
    }
  g_autoptr (ResPublishedCase) yday = rc_row ("yesterday", "");
  g_assert_cmpstr (yday->skip_reason, ==, "recompute 'yesterday' not recognised");
  /* a qualifier that says only which kind the run did not use, or names the attention
   * beside other parts of the layer: skipped, saying so */
  static const struct { const char *text, *why; } unsure[] = {
    { "yes (not full)", "recompute 'yes (not full)' says which kind it is not, not which it "
      "is (hint: write the kind)" },
    { "yes (attention and MLP)", "recompute 'yes (attention and MLP)' names the attention "
      "beside other parts of the layer: neither full nor selective (hint: write the kind)" },
    { "on (attn + mlp)", "recompute 'on (attn + mlp)' names the attention beside other parts "
      "of the layer: neither full nor selective (hint: write the kind)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (unsure); i++)
    {
      g_autoptr (ResPublishedCase) c = rc_row (unsure[i].text, "");
      g_assert_false (c->ready);
      g_assert_cmpstr (c->skip_reason, ==, unsure[i].why);
    }
  /* one level of qualifier is read: 50,000 nested "yes (" took minutes (each level read
   * the rest of the cell again), and read as the bare yes, the inner answers' word alone */
  {
    static const struct { const char *unit, *tail; PlanRecompute want; } deep[] = {
      { "yes (", "", PLAN_RECOMPUTE_FULL },
      { "yes (", "selective)", PLAN_RECOMPUTE_FULL },
      { "on, ", "", PLAN_RECOMPUTE_FULL },
      { "off (", "", PLAN_RECOMPUTE_NONE },
    };
    for (guint i = 0; i < G_N_ELEMENTS (deep); i++)
      {
        g_autoptr (GString) cell = g_string_new (NULL);
        for (int k = 0; k < 50000; k++)
          g_string_append (cell, deep[i].unit);
        g_string_append (cell, deep[i].tail);
        g_autoptr (ResPublishedCase) c = rc_row (cell->str, "");
        if (!c->ready || c->plan.recompute != deep[i].want)
          g_error ("50,000 x '%s': ready %d, recompute %d (%s)", deep[i].unit, c->ready,
                   c->plan.recompute, c->skip_reason ? c->skip_reason : "");
      }
  }

  /* Megatron-Core's --recompute-modules in a dense row (rc_row's GPT has no moe cell):
   * the names are read as in an MoE row. "core_attn, mlp" is selective recompute with the
   * dense MLP checkpointed (Paxml's SAVE_QKV_OUT_PROJ, rows 912-916: only the q/k/v and
   * out-projection outputs are kept); "mlp" alone leaves the attention core stored. Until
   * now a dense row dropped the list: "core_attn, mlp" read as plain selective and "mlp"
   * as no recompute at all. */
  g_autoptr (ResPublishedCase) sel = rc_row ("selective", "");
  g_autoptr (ResPublishedCase) sel_mlp = rc_row ("selective (modules: core_attn, mlp)", "");
  g_autoptr (ResPublishedCase) mlp = rc_row ("selective (modules: mlp)", "");
  g_assert_true (sel->ready && sel_mlp->ready && mlp->ready);
  g_assert_cmpint (sel_mlp->plan.recompute, ==, PLAN_RECOMPUTE_SELECTIVE);
  g_assert_cmpuint (sel_mlp->plan.moe_recompute, ==, PLAN_MOE_RECOMPUTE_MLP);
  g_assert_cmpint (mlp->plan.recompute, ==, PLAN_RECOMPUTE_NONE);
  g_assert_cmpuint (mlp->plan.moe_recompute, ==, PLAN_MOE_RECOMPUTE_MLP);
  g_assert_cmpuint (sel->plan.moe_recompute, ==, 0);
  /* ... also as a quoted Python / YAML list, a shell-quoted flag list, or two names joined
   * by '&' or '/' (the regression audit's cells on a dense Megatron-Core row). Before:
   * the first and third read as no recompute and no modules, the second was refused
   * naming "''core_attn''" with its quotes, "&" kept mlp alone, "/" was not recognised */
  static const struct { const char *text; PlanRecompute want; guint modules; } listed[] = {
    { "selective, recompute_modules=[\"mlp\", \"layernorm\"]", PLAN_RECOMPUTE_NONE,
      PLAN_MOE_RECOMPUTE_MLP | PLAN_MOE_RECOMPUTE_LAYERNORM },
    { "selective; recompute_modules: ['core_attn', 'mlp']", PLAN_RECOMPUTE_SELECTIVE,
      PLAN_MOE_RECOMPUTE_MLP },
    { "--recompute-granularity selective --recompute-modules \"mlp layernorm\"",
      PLAN_RECOMPUTE_NONE, PLAN_MOE_RECOMPUTE_MLP | PLAN_MOE_RECOMPUTE_LAYERNORM },
    { "--recompute-modules mlp & layernorm", PLAN_RECOMPUTE_NONE,
      PLAN_MOE_RECOMPUTE_MLP | PLAN_MOE_RECOMPUTE_LAYERNORM },
    { "--recompute-modules mlp/layernorm", PLAN_RECOMPUTE_NONE,
      PLAN_MOE_RECOMPUTE_MLP | PLAN_MOE_RECOMPUTE_LAYERNORM },
  };
  for (guint i = 0; i < G_N_ELEMENTS (listed); i++)
    {
      g_autoptr (ResPublishedCase) c = rc_row (listed[i].text, "");
      if (!c->ready || c->plan.recompute != listed[i].want
          || c->plan.moe_recompute != listed[i].modules)
        g_error ("'%s': recompute %d, modules %u, expected %d, %u (%s)", listed[i].text,
                 c->plan.recompute, c->plan.moe_recompute, listed[i].want, listed[i].modules,
                 c->skip_reason ? c->skip_reason : "");
    }
  /* The MLP's forward runs again before its backward. Per token and layer of rc_row's GPT
   * (h 1024, GeLU ffn 4096, s 1024): the forward GEMMs are 2 (4 h^2 + 8 h^2) = 25.2 MFLOP
   * (q/k/v and out, up and down), the attention core 4 s h = 4.2 MFLOP; a step runs them
   * 3 times, the selective recompute adds the core once, and the logits add 6 V h / L =
   * 6.3 MFLOP a layer: 3 x 29.4 + 4.2 + 6.3 = 98.7 MFLOP. The MLP forward adds 2 x 8 h^2
   * = 16.8 MFLOP, +17% of the matmul work; the step's compute grows by about that much
   * (between +10% and +25%, the kernels' efficiencies differing by shape). */
  g_assert_true (res_published_case_predict (sel));
  g_assert_true (res_published_case_predict (sel_mlp));
  double grow = sel_mlp->predicted_compute_s / sel->predicted_compute_s;
  if (grow < 1.10 || grow > 1.25)
    g_error ("MLP recompute: compute %.4f s against %.4f s (x %.3f), expected x 1.10-1.25",
             sel_mlp->predicted_compute_s, sel->predicted_compute_s, grow);
}

/* An empty recompute cell takes the notes' word, unless the notes negate it: "No
 * activation checkpointing.", "without activation checkpointing", "Activation
 * checkpointing not stated." and "activation checkpointing: false" read none (they read
 * full); "full activation checkpointing on every layer" and "selective recompute" still
 * name it */
static void
test_recompute_notes_negated (void)
{
  static const struct { const char *notes; PlanRecompute want; } rows[] = {
    { "No activation checkpointing.", PLAN_RECOMPUTE_NONE },
    { "Ran without activation checkpointing, FSDP2.", PLAN_RECOMPUTE_NONE },
    { "Activation checkpointing not stated.", PLAN_RECOMPUTE_NONE },
    { "activation checkpointing: false", PLAN_RECOMPUTE_NONE },
    { "Config: activation checkpointing on every layer", PLAN_RECOMPUTE_FULL },
    { "full activation recompute", PLAN_RECOMPUTE_FULL },
    { "selective recompute (core attention)", PLAN_RECOMPUTE_SELECTIVE },
    { "no full recompute; selective recompute of attention", PLAN_RECOMPUTE_SELECTIVE },
    /* a negation of something else nearby, a qualifying bracket, a double negation read
     * as the audit of this round found them (they read none) */
    { "selective recompute (not full recompute)", PLAN_RECOMPUTE_SELECTIVE },
    { "No OOM with activation checkpointing", PLAN_RECOMPUTE_FULL },
    { "There is no doubt activation checkpointing was on", PLAN_RECOMPUTE_FULL },
    { "BF16 (no FP8) with activation checkpointing", PLAN_RECOMPUTE_FULL },
    { "TP 8, no SP and activation checkpointing", PLAN_RECOMPUTE_FULL },
    { "activation checkpointing (not stated which layers)", PLAN_RECOMPUTE_FULL },
    { "activation checkpointing not stated otherwise, full", PLAN_RECOMPUTE_FULL },
    { "activation checkpointing is not disabled", PLAN_RECOMPUTE_FULL },
    { "did not use activation checkpointing", PLAN_RECOMPUTE_NONE },
    /* the second audit's: negations the narrowed rule had lost */
    { "BF16 (no activation checkpointing).", PLAN_RECOMPUTE_NONE },
    { "(w/o activation checkpointing)", PLAN_RECOMPUTE_NONE },
    { "activation checkpointing was not used", PLAN_RECOMPUTE_NONE },
    { "activation checkpointing not enabled", PLAN_RECOMPUTE_NONE },
    { "activation checkpointing (off)", PLAN_RECOMPUTE_NONE },
    { "activation checkpointing - off", PLAN_RECOMPUTE_NONE },
    { "without any activation checkpointing", PLAN_RECOMPUTE_NONE },
    { "did not need activation checkpointing", PLAN_RECOMPUTE_NONE },
    /* the audit of 8 Dec: a verdict after a qualifier word, another run's statement in a
     * relative clause or a comparison (each read full) */
    { "Model checkpoints saved every 4 hours; activation checkpointing settings not reported.",
      PLAN_RECOMPUTE_NONE },
    { "Throughput improved by a factor of 4 over our 2021 run, which used activation "
      "checkpointing on V100s.", PLAN_RECOMPUTE_NONE },
    { "Unlike the baseline with activation checkpointing, this run fits without it.",
      PLAN_RECOMPUTE_NONE },
    { "Trained with activation checkpointing on every layer, as in the paper.",
      PLAN_RECOMPUTE_FULL },
    { "no selective or full recompute; activation checkpointing disabled", PLAN_RECOMPUTE_NONE },
    /* a bracket or clause after it about something else (the third audit) */
    /* selective named beside checkpointing in any order (the fourth audit: read full by
     * "activation checkpointing") */
    { "activation checkpointing: selective", PLAN_RECOMPUTE_SELECTIVE },
    { "selective activation checkpointing (op)", PLAN_RECOMPUTE_SELECTIVE },
    { "AC: selective. 32 layers.", PLAN_RECOMPUTE_SELECTIVE },
    { "recompute_granularity=selective", PLAN_RECOMPUTE_SELECTIVE },
    { "not selective: activation checkpointing of every layer", PLAN_RECOMPUTE_FULL },
    { "activation checkpointing (no CPU offload)", PLAN_RECOMPUTE_FULL },
    { "activation checkpointing - no offloading", PLAN_RECOMPUTE_FULL },
    { "activation checkpointing: no selective, full", PLAN_RECOMPUTE_FULL },
    { "activation checkpointing (no)", PLAN_RECOMPUTE_NONE },
    { "activation checkpointing: no.", PLAN_RECOMPUTE_NONE },
    { "", PLAN_RECOMPUTE_NONE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "recompute,framework,notes,precision,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,64,16,1024,16,16384,1024,1,1,,Megatron-Core,\"%s\",bf16,256,1.0\n",
        rows[i].notes);
      ResPublishedCase *c = case_of (text);
      g_assert_null (c->skip_reason);
      if (c->plan.recompute != rows[i].want)
        g_error ("notes '%s': recompute %d, expected %d", rows[i].notes, c->plan.recompute,
                 rows[i].want);
      res_published_case_free (c);
    }
}

/* An unstated tp / pp: 1 on a stack whose configs default to no model parallelism
 * (MaxText's base.yml ici_tensor_parallelism 1, ici_fsdp_parallelism -1; torchtitan's
 * degrees 1), so dp = every GPU (64 here); still skipped on Megatron-Core, whose runs
 * nearly all split the model (an audit's MaxText rows were skipped "tp not stated") */
static void
test_unstated_degrees (void)
{
  static const struct { const char *fw, *tp; gboolean skipped; } rows[] = {
    { "MaxText (JAX)", "", FALSE },
    { "MaxText (JAX)", "not stated", FALSE },
    { "torchtitan", "", FALSE },
    { "Megatron-Core", "", TRUE },
    /* a tp cell that says something but no degree is not read as 1 */
    { "MaxText (JAX)", "tensor parallel", TRUE },
    /* nor where the framework names the model parallelism left out of the cells */
    { "torchtitan (FSDP2+TP+PP 1F1B)", "", TRUE },
    { "MaxText, 3D parallelism", "", TRUE },
    /* a negated or unrelated mention does not ("no tensor parallelism", a data pipeline) */
    { "torchtitan, no tensor parallelism", "", FALSE },
    { "torchtitan, synthetic data pipeline", "", FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,"
        "zero_stage_or_fsdp,framework,precision,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,64,16,1024,16,16384,1024,\"%s\",FSDP,\"%s\",bf16,256,1.0\n",
        rows[i].tp, rows[i].fw);
      ResPublishedCase *c = case_of (text);
      if (rows[i].skipped)
        g_assert_nonnull (c->skip_reason);
      else
        {
          if (c->skip_reason != NULL)
            g_error ("%s tp '%s': skipped: %s", rows[i].fw, rows[i].tp, c->skip_reason);
          g_assert_cmpint (c->plan.tp, ==, 1);
          g_assert_cmpint (c->plan.pp, ==, 1);
          g_assert_cmpint (c->plan.dp, ==, 64);
        }
      res_published_case_free (c);
    }
}

/* A tp left empty where the degrees the row states already fill the GPUs is 1: pp x cp
 * (x dp where stated) = n_gpus leaves no GPU to split a layer over. Cells tp, pp, cp, dp
 * on `gpus` GPUs of Megatron-Core (a stack whose unstated degrees are not 1), then the
 * global_batch, grad_accum and micro_batch cells; want_tp 0: skipped "tp not stated", as
 * every row here was before. The Zero Bubble paper's Table 3 gives "Pipelines (GPUs) = 8"
 * on 8 GPUs and nothing of TP or DP (rows 9334-9335 of an audit): tp 1, dp 1. Its global
 * batch left empty with "24 (Number of Microbatches)" of micro-batch 6 is then
 * micro_batch x grad_accum x dp = 6 x 24 x 1 = 144 (skipped "missing global_batch":
 * dp was not known without tp). pp 4 x cp 2 = 8 and pp 4 x dp 2 = 8 leave 1 too (the
 * second was read as 1 already, silently; now the line says why). pp 4 alone on 8 GPUs
 * leaves tp x dp = 2 open, and tp and pp both empty (shipped rows 13 and 14) say nothing
 * of the split: still skipped, as is a cp cell with no degree read ("ring"). */
static void
test_tp_left_one (void)
{
  static const struct {
    const char *tp, *pp, *cp, *dp; int gpus; const char *gb, *ga, *mb;
    int want_tp, want_dp, want_gb; const char *why;
  } rows[] = {
    { "", "8 (Pipelines (GPUs) = 8)", "", "", 8, "144", "", "6", 1, 1, 144,
      "-> 1 (not stated: pp 8 = n_gpus 8 leaves 1)" },
    { "", "8 (Pipelines (GPUs) = 8)", "", "", 8, "", "24 (Number of Microbatches)", "6", 1, 1,
      144, "-> 144 (24 micro-batches per step; the cell is empty: micro_batch 6 x grad_accum "
      "24 x dp 1)" },
    { "not stated", "8", "", "", 8, "64", "", "", 1, 1, 64, "leaves 1" },
    { "", "4", "2", "", 8, "64", "", "", 1, 1, 64,
      "-> 1 (not stated: pp 4 x cp 2 = n_gpus 8 leaves 1)" },
    { "", "4", "", "2", 8, "64", "", "", 1, 2, 64,
      "-> 1 (not stated: pp 4 x dp 2 = n_gpus 8 leaves 1)" },
    { "", "4", "", "", 8, "64", "", "", 0, 0, 0, NULL },
    { "", "", "", "", 8, "64", "", "", 0, 0, 0, NULL },
    { "", "8", "ring", "", 8, "64", "", "", 0, 0, 0, NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,cp,dp,"
        "framework,global_batch,grad_accum,micro_batch,step_time_s\n"
        "1,GPT,NVIDIA A100 SXM 80G,%d,16,1024,16,16384,1024,\"%s\",\"%s\",\"%s\",\"%s\","
        "Megatron-Core,\"%s\",\"%s\",\"%s\",1.0\n",
        rows[i].gpus, rows[i].tp, rows[i].pp, rows[i].cp, rows[i].dp, rows[i].gb, rows[i].ga,
        rows[i].mb);
      g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
      g_autoptr (ResPublishedCase) c = res_published_case_new (csv, 0);
      if (rows[i].want_tp == 0)
        {
          if (g_strcmp0 (c->skip_reason, "tp not stated") != 0)
            g_error ("tp '%s' pp '%s' cp '%s': %s, expected skipped 'tp not stated'",
                     rows[i].tp, rows[i].pp, rows[i].cp,
                     c->skip_reason != NULL ? c->skip_reason : "read");
          continue;
        }
      if (c->skip_reason != NULL)
        g_error ("tp '%s' pp '%s' cp '%s' dp '%s': skipped: %s", rows[i].tp, rows[i].pp,
                 rows[i].cp, rows[i].dp, c->skip_reason);
      g_assert_cmpint (c->plan.tp, ==, rows[i].want_tp);
      g_assert_cmpint (c->plan.dp_given, ==, rows[i].want_dp);
      g_assert_cmpint (c->plan.global_batch, ==, rows[i].want_gb);
      g_autofree char *e = res_published_explain (csv, 0, c);
      if (strstr (e, rows[i].why) == NULL)
        g_error ("explain lacks '%s':\n%s", rows[i].why, e);
    }
}

/* A global batch and a grad_accum both left empty beside a stated micro_batch: the
 * stack's documented accumulation steps (defaults.grad_accum), micro_batch x them x dp,
 * at pp 1 only. Cells framework, tp, pp, dp on `gpus` GPUs, micro_batch, grad_accum;
 * want the global batch, or 0: skipped "missing global_batch", or -1: skipped with the
 * pipeline hint. Every row was skipped "missing global_batch" before. The PyTorch FSDP
 * blog's IBM rows (micro_batch 2 on 128 A100s, FSDP, no tp or pp: the pytorch-fsdp
 * stack's tp and pp 1, dp 128; a plain FSDP loop steps every batch): 2 x 1 x 128 = 256,
 * the blog's own 256 a step; torchtitan's Llama 3 8B rows (local batch 1 on 8 GPUs,
 * global_batch_size -1): 1 x 1 x 8 = 8; ROCm MaxText (per_device_batch_size 3, dp 16,
 * gradient_accumulation_steps 1): 48; DeepSpeed at tp 2 on 16 GPUs (dp 8, micro 4):
 * 32; a grad_accum cell "not stated" is empty. At pp 2 (torchtitan) or pp 4 (DeepSpeed)
 * one micro-batch a step is not what a pipeline ran: skipped, with a hint. Megatron-Core,
 * NeMo and llm-foundry document no default (their tables print the global batch), a row
 * without a micro_batch has nothing to multiply, and torchtitan naming the TP and PP it
 * leaves out has unknown degrees: all still "missing global_batch"; MaxText at tp > 1,
 * whose batch is per device (all of them), is skipped saying so (-2). */
static void
test_batch_from_stack_accumulation (void)
{
  static const struct {
    const char *fw, *tp, *pp, *dp; int gpus; const char *mb, *ga; int want; const char *stack;
  } rows[] = {
    { "PyTorch FSDP (IBM fms-fsdp)", "", "", "", 128, "2", "", 256, "pytorch-fsdp" },
    { "torchtitan (torch.compile, FSDP2)", "", "", "", 8, "1", "", 8, "torchtitan" },
    { "rocm/jax-training (JAX MaxText)", "1", "1", "16", 16, "3", "", 48, "maxtext" },
    { "DeepSpeed", "2", "1", "", 16, "4", "", 32, "deepspeed" },
    { "torchtitan", "", "", "", 8, "1", "not stated", 8, "torchtitan" },
    { "torchtitan", "", "2", "", 8, "1", "", -1, NULL },
    { "DeepSpeed", "1", "4", "", 16, "2", "", -1, NULL },
    { "Megatron-Core", "2", "1", "", 16, "2", "", 0, NULL },
    { "NeMo 24.07", "2", "1", "", 16, "2", "", 0, NULL },
    { "llm-foundry", "", "", "", 16, "2", "", 0, NULL },
    { "torchtitan", "", "", "", 8, "", "", 0, NULL },
    { "torchtitan (FSDP2+TP+PP 1F1B)", "", "", "", 8, "1", "", 0, NULL },
    /* MaxText at tp 2: its per_device_batch_size is every device's, so micro_batch x dp
     * (3 x 8) would be half its batch (3 x 16): skipped with -2 */
    { "rocm/jax-training (JAX MaxText)", "2", "1", "", 16, "3", "", -2, NULL },
    /* ... also where grad_accum is stated (micro_batch x grad_accum x dp): tp 4 on 64
     * GPUs, micro_batch 2, grad_accum 1 read 2 x 1 x 16 = 32, where MaxText's batch is
     * 2 x 64 x 1 = 128 */
    { "MaxText", "4", "1", "", 64, "2", "1", -2, NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,dp,"
        "zero_stage_or_fsdp,framework,micro_batch,grad_accum,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,%d,16,1024,16,16384,1024,\"%s\",\"%s\",\"%s\",FSDP,\"%s\","
        "\"%s\",\"%s\",,1.0\n",
        rows[i].gpus, rows[i].tp, rows[i].pp, rows[i].dp, rows[i].fw, rows[i].mb, rows[i].ga);
      g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
      g_autoptr (ResPublishedCase) c = res_published_case_new (csv, 0);
      if (rows[i].want == 0)
        {
          if (g_strcmp0 (c->skip_reason, "missing global_batch") != 0)
            g_error ("%s: %s, expected skipped 'missing global_batch'", rows[i].fw,
                     c->skip_reason != NULL ? c->skip_reason : "read");
          continue;
        }
      if (rows[i].want == -2)
        {
          if (c->skip_reason == NULL
              || strstr (c->skip_reason, "MaxText's per-device batch is no data-parallel "
                                         "rank's micro-batch") == NULL)
            g_error ("%s tp %s: %s, expected the MaxText skip", rows[i].fw, rows[i].tp,
                     c->skip_reason != NULL ? c->skip_reason : "read");
          continue;
        }
      if (rows[i].want < 0)
        {
          if (c->skip_reason == NULL || strstr (c->skip_reason, "is no pipeline's step") == NULL
              || strstr (c->skip_reason, "hint: state global_batch, or grad_accum") == NULL)
            g_error ("%s pp %s: %s, expected the pipeline skip", rows[i].fw, rows[i].pp,
                     c->skip_reason != NULL ? c->skip_reason : "read");
          continue;
        }
      if (c->skip_reason != NULL)
        g_error ("%s: skipped: %s", rows[i].fw, c->skip_reason);
      g_assert_cmpstr (c->stack->name, ==, rows[i].stack);
      g_assert_cmpint (c->plan.global_batch, ==, rows[i].want);
      g_assert_cmpint (c->plan.grad_accum, ==, 1);
      /* the line says where the 1 came from */
      g_autofree char *e = res_published_explain (csv, 0, c);
      g_autofree char *why = g_strdup_printf ("grad_accum not stated: the %s stack's default 1",
                                              rows[i].stack);
      if (strstr (e, why) == NULL)
        g_error ("explain lacks '%s':\n%s", why, e);
    }
}

/* Accumulation or a global batch the row states elsewhere, where its global_batch and
 * grad_accum cells are empty: the stack's default of 1 step is not what ran. A plain
 * labelled count is read, from the notes ("gradient_accumulation_steps=N", "GAS=N",
 * "gradient accumulation N steps") or the micro_batch cell ("global_batch_size N");
 * accumulation or a global batch named without such a count is skipped with a hint.
 * Cells framework, tp, pp on `gpus` GPUs, micro_batch, notes; want the global batch, or
 * -1: skipped. All of these read micro_batch x 1 x dp before: torchtitan at local batch 1
 * on 8 GPUs with "gradient accumulation 4 steps" is 1 x 4 x 8 = 32 (read 8); DeepSpeed
 * micro 4 on 64 GPUs, "gradient_accumulation_steps 8": 4 x 8 x 64 = 2,048 (read 256);
 * "1 (local_batch_size; global_batch_size 32)" on 8 GPUs is 32, 4 steps of 1 x 8 (read 8);
 * "effective batch 64 via gradient accumulation" gives no count of steps (read 8). A
 * global batch that is no whole number of micro_batch x dp steps ("global_batch_size 30"
 * on 8 ranks) is skipped too. A count in prose ("The global batch size is 128") and an
 * effective batch per data-parallel rank, GPU, worker or host are read too (their rows
 * below). */
static void
test_batch_accumulation_stated (void)
{
  static const struct {
    const char *fw, *tp, *pp; int gpus; const char *mb, *notes; int want; const char *why;
  } rows[] = {
    { "torchtitan", "", "", 8, "1", "gradient accumulation 4 steps", 32,
      "micro_batch 1 x grad_accum 4 x dp 8; grad_accum from the notes" },
    { "torchtitan", "", "", 8, "1", "GAS=4", 32, "grad_accum from the notes" },
    { "DeepSpeed", "1", "1", 64, "4", "gradient_accumulation_steps 8", 2048,
      "micro_batch 4 x grad_accum 8 x dp 64; grad_accum from the notes" },
    { "PyTorch FSDP", "", "", 8, "8", "HF Trainer, gradient_accumulation_steps=4", 256,
      "grad_accum from the notes" },
    { "torchtitan", "", "", 8, "1 (local_batch_size; global_batch_size 32)", "", 32,
      "global batch 32 from the micro_batch cell = micro_batch 1 x dp 8 x 4 accumulation "
      "steps" },
    /* an effective batch is the global batch: 64 = 1 x 8 x 8 steps */
    { "DeepSpeed", "1", "1", 8, "1", "effective batch 64 via gradient accumulation", 64,
      "global batch 64 from the notes" },
    { "torchtitan", "", "", 8, "1 (global_batch_size 30)", "", -1, NULL },
    /* read so before: accumulation said off, and Megatron's fused weight-gradient kernel,
     * leave the stack's default */
    { "torchtitan", "", "", 8, "1", "no gradient accumulation", 8,
      "grad_accum not stated: the torchtitan stack's default 1" },
    { "torchtitan", "", "", 8, "1", "gradient_accumulation_fusion on", 8,
      "grad_accum not stated: the torchtitan stack's default 1" },
    /* accumulation named with no count of it (its dtype), a negative global batch (the
     * default -1), a count said of another row, and the first factor of a product leave
     * the default (a rule that refused a mention without a count skipped the first
     * three; the last read 2, and -1 read 1) */
    { "torchtitan", "", "", 8, "1", "FP32 gradient accumulation (main grads)", 8,
      "grad_accum not stated: the torchtitan stack's default 1" },
    { "torchtitan", "", "", 8, "1", "global_batch_size=-1 (torchtitan default)", 8,
      "grad_accum not stated: the torchtitan stack's default 1" },
    { "torchtitan", "", "", 8, "1", "gradient_accumulation_steps=1 here; row 5 used GAS=4", 8,
      "grad_accum not stated: the torchtitan stack's default 1" },
    /* "per step" / "per iteration" is no batch per GPU */
    { "torchtitan", "", "", 8, "1", "Global batch 64 per step.", 64,
      "global batch 64 from the notes" },
    { "torchtitan", "", "", 8, "1", "Global batch 64, as in row 3.", 64,
      "global batch 64 from the notes" },
    { "torchtitan", "", "", 8, "1", "Row 3 used a global batch of 512.", 8,
      "grad_accum not stated: the torchtitan stack's default 1" },
    /* a count grouped in thousands is one number: 1,024 = 1 x 8 x 128 steps (read 1,
     * which no whole number of 1 x 8 steps makes: skipped) */
    { "torchtitan", "", "", 8, "1", "global batch 1,024", 1024,
      "global batch 1024 from the notes" },
    { "torchtitan", "", "", 8, "1", "GBS 2 048 sequences", 2048,
      "global batch 2048 from the notes" },
    /* a global batch or accumulation in prose, a few words between the label and its
     * number ("is", "of", "was set to"), or the sentence opening with "The", "We use a",
     * "with a": torchtitan at local batch 1 on 64 GPUs, 128 = 1 x 64 x 2 steps. Each read
     * 64, the stack's default of 1 step, with nothing said of the notes */
    { "torchtitan", "", "", 64, "1", "The global batch size is 128.", 128,
      "global batch 128 from the notes = micro_batch 1 x dp 64 x 2 accumulation steps" },
    { "torchtitan", "", "", 64, "1", "global batch size was set to 128", 128,
      "global batch 128 from the notes = micro_batch 1 x dp 64 x 2 accumulation steps" },
    { "torchtitan", "", "", 64, "1", "with a global batch size of 128 (1M tokens)", 128,
      "global batch 128 from the notes = micro_batch 1 x dp 64 x 2 accumulation steps" },
    { "torchtitan", "", "", 64, "1", "Global batch of 128.", 128,
      "global batch 128 from the notes = micro_batch 1 x dp 64 x 2 accumulation steps" },
    { "torchtitan", "", "", 64, "1", "We use a global batch of 128 sequences (1M tokens).", 128,
      "global batch 128 from the notes = micro_batch 1 x dp 64 x 2 accumulation steps" },
    { "torchtitan", "", "", 64, "1",
      "global batch of 128 sequences of 8K tokens = 1,048,576 tokens", 128,
      "global batch 128 from the notes = micro_batch 1 x dp 64 x 2 accumulation steps" },
    { "torchtitan", "", "", 64, "1", "The effective global batch size is 128 sequences.", 128,
      "global batch 128 from the notes = micro_batch 1 x dp 64 x 2 accumulation steps" },
    { "torchtitan", "", "", 64, "1", "effective global batch 128 per optimizer step.", 128,
      "global batch 128 from the notes = micro_batch 1 x dp 64 x 2 accumulation steps" },
    { "torchtitan", "", "", 64, "1", "gradient accumulation of 2 steps", 128,
      "micro_batch 1 x grad_accum 2 x dp 64; grad_accum from the notes" },
    /* ... but prose about another run, a baseline, a product's first factor, a size in
     * tokens and a negative value are still no count: the default's 1 x 1 x 64 */
    { "torchtitan", "", "", 64, "1", "Llama 2 used a global batch of 512.", 64,
      "grad_accum not stated: the torchtitan stack's default 1" },
    { "torchtitan", "", "", 64, "1", "The baseline used a global batch of 256.", 64,
      "grad_accum not stated: the torchtitan stack's default 1" },
    { "torchtitan", "", "", 64, "1", "The global batch size is 2 x 64 GPUs.", 64,
      "grad_accum not stated: the torchtitan stack's default 1" },
    { "torchtitan", "", "", 64, "1", "The global batch size is 4M tokens.", 64,
      "grad_accum not stated: the torchtitan stack's default 1" },
    { "torchtitan", "", "", 64, "1", "global batch size is -1", 64,
      "grad_accum not stated: the torchtitan stack's default 1" },
    /* an effective batch per data-parallel rank, per GPU or per host is one replica's,
     * GPU's or node's, not the global batch (the first three read 2, 8 and 16, no whole
     * number of 1 x 64 steps: skipped; the last read 64, the default): per rank x dp 64,
     * 2 x 64 = 128; per GPU x 64 where each GPU is a replica (tp 1), 8 x 64 = 512 (the 8
     * accumulation steps the notes give) and 2 x 64 = 128; per host x the 8 nodes of 8
     * H100s, 16 x 8 = 128 */
    { "torchtitan", "", "", 64, "1",
      "Effective batch size 2 per data-parallel rank (gradient accumulation 2).", 128,
      "global batch 128 from the notes (effective batch 2 per data-parallel rank x dp 64) = "
      "micro_batch 1 x dp 64 x 2 accumulation steps" },
    { "torchtitan", "", "", 64, "1",
      "effective batch 8 sequences per GPU (local batch 1, 8 grad-accum steps)", 512,
      "global batch 512 from the notes (effective batch 8 per GPU x dp 64) = micro_batch 1 "
      "x dp 64 x 8 accumulation steps" },
    { "torchtitan", "", "", 64, "1", "effective batch 16 per host (8 GPUs per host)", 128,
      "global batch 128 from the notes (effective batch 16 per host x 8 nodes of 8 GPUs)" },
    { "torchtitan", "", "", 64, "1", "effective batch size per GPU: 2 (global 128)", 128,
      "global batch 128 from the notes (effective batch 2 per GPU x dp 64)" },
    /* at tp 2 a batch per GPU may be a tensor-parallel pair's or one GPU's: not read, the
     * default stands as it did (32 = 1 x 1 x dp 32); one per data-parallel rank is still
     * the replica's, 4 x 32 = 128 */
    { "torchtitan", "2", "", 64, "1", "effective batch 4 per GPU", 32,
      "grad_accum not stated: the torchtitan stack's default 1" },
    { "torchtitan", "2", "", 64, "1", "effective batch 4 per data-parallel rank", 128,
      "global batch 128 from the notes (effective batch 4 per data-parallel rank x dp 32)" },
    /* a global batch given per unit says two things: not read (it read 128) */
    { "torchtitan", "", "", 64, "1", "Global batch 128 per replica.", 64,
      "grad_accum not stated: the torchtitan stack's default 1" },
    /* a fraction is no count: "1/4" read 1 as the global batch, no whole number of 1 x 64
     * steps, and the row was skipped; the default's 1 x 1 x 64 stands, as before the prose
     * fillers ("is") let the label reach it */
    { "torchtitan", "", "", 64, "1", "The global batch size is 1/4 of the pretraining batch.",
      64, "grad_accum not stated: the torchtitan stack's default 1" },
    /* ... while a batch over its GPUs is the batch (a rule that took any '/' and digit for
     * a fraction left it unread): 128 = 1 x 64 x 2 steps */
    { "torchtitan", "", "", 64, "1", "GBS 128/64 GPUs", 128, "global batch 128 from the notes" },
    /* ... as are two models' batches and a global batch said per a group of the job (the
     * seventh audit: read as a fraction, and as a batch per a unit not known) */
    { "torchtitan", "", "", 64, "1", "GBS 128/256 (8B/70B)", 128,
      "global batch 128 from the notes" },
    { "torchtitan", "", "", 64, "1", "global batch 128/256 of 4096-token sequences", 128,
      "global batch 128 from the notes" },
    { "torchtitan", "", "", 64, "1", "global batch 128 per DP group", 128,
      "global batch 128 from the notes" },
    /* a data-parallel worker is one replica (read 2 as the global batch and skipped): on
     * 64 GPUs at tp 1, 2 x dp 64 = 128, 2 accumulation steps of 1 x 64; at tp 2, 4 x dp
     * 32 = 128 */
    { "torchtitan", "", "", 64, "1", "effective batch size 2 per data parallel worker", 128,
      "global batch 128 from the notes (effective batch 2 per data-parallel worker x dp 64)" },
    { "torchtitan", "2", "", 64, "1", "effective batch 4 per data-parallel worker", 128,
      "global batch 128 from the notes (effective batch 4 per data-parallel worker x dp 32)" },
    /* an effective batch per a unit not known cannot be multiplied out: skipped with the
     * hint, not left to the default (an 8-GPU node, a DGX node; a bare worker or process,
     * one GPU's under torchrun and a node's under other launchers: three audits read them
     * as a GPU's, then not at all, and each was wrong for some wording) */
    { "torchtitan", "", "", 64, "1", "effective batch size 16 per 8-GPU node", -1, NULL },
    { "torchtitan", "", "", 64, "1", "effective batch size 16 per DGX node", -1, NULL },
    { "torchtitan", "", "", 64, "1", "effective batch size of 2 per worker", -1, NULL },
    { "torchtitan", "", "", 64, "1", "effective batch size 16 per worker (8 GPUs each)", -1,
      NULL },
    { "torchtitan", "", "", 64, "1", "effective batch size 2 per process", -1, NULL },
    /* ... but a batch per optimizer step, over a count of GPUs, or a division after the
     * global batch names no such unit: 128 = 1 x 64 x 2 steps, read as before */
    { "torchtitan", "", "", 64, "1", "effective batch size 128 per 64 GPUs", 128,
      "global batch 128 from the notes = micro_batch 1 x dp 64 x 2 accumulation steps" },
    { "torchtitan", "", "", 64, "1", "global batch 128 per iteration", 128,
      "global batch 128 from the notes = micro_batch 1 x dp 64 x 2 accumulation steps" },
    { "torchtitan", "", "", 64, "1", "global batch 128 / 64 GPUs = 2 per GPU", 128,
      "global batch 128 from the notes = micro_batch 1 x dp 64 x 2 accumulation steps" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "zero_stage_or_fsdp,framework,micro_batch,grad_accum,global_batch,notes,"
        "step_time_s\n"
        "1,GPT,H100-SXM-80GB,%d,16,1024,16,16384,1024,\"%s\",\"%s\",FSDP,\"%s\",\"%s\",,,"
        "\"%s\",1.0\n",
        rows[i].gpus, rows[i].tp, rows[i].pp, rows[i].fw, rows[i].mb, rows[i].notes);
      g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
      g_autoptr (ResPublishedCase) c = res_published_case_new (csv, 0);
      if (rows[i].want < 0)
        {
          if (c->skip_reason == NULL
              || !g_str_has_prefix (c->skip_reason, "missing global_batch: ")
              || strstr (c->skip_reason, "hint: state global_batch, or grad_accum") == NULL)
            g_error ("'%s' / '%s': %s, expected skipped with the hint", rows[i].mb,
                     rows[i].notes, c->skip_reason != NULL ? c->skip_reason : "read");
          continue;
        }
      if (c->skip_reason != NULL)
        g_error ("'%s' / '%s': skipped: %s", rows[i].mb, rows[i].notes, c->skip_reason);
      if (c->plan.global_batch != rows[i].want)
        g_error ("'%s' / '%s': global batch %d, expected %d", rows[i].mb, rows[i].notes,
                 c->plan.global_batch, rows[i].want);
      /* the line says where the count came from */
      g_autofree char *e = res_published_explain (csv, 0, c);
      if (strstr (e, rows[i].why) == NULL)
        g_error ("explain lacks '%s':\n%s", rows[i].why, e);
    }
}

/* Megatron-Core's count with its s x s term said halved for causal masks is the causal
 * variant (convention 4 of published-runs.md), not the non-causal count it read as: a
 * row measured by TFLOP/s then measured a step as much longer as the non-causal count is
 * larger. The same cell without "causal" keeps Megatron-Core's own count. 16 H100s, seq
 * 4,096 (attention a large share, so the two counts differ). */
static void
test_mcore_causal_convention (void)
{
  static const char *const conv[] = {
    "Megatron-Core num_floating_point_operations (2025 MoE-aware form: attention with the "
    "s x s term halved for causal masks + logits)",
    "Megatron-Core num_floating_point_operations",
    /* the halving said not done, or "causal" otherwise: the non-causal count */
    "Megatron-Core num_floating_point_operations (s x s term not halved for causal masks)",
    "NeMo/Megatron model FLOPs, attention counted as full s x s despite causal masking",
    "Megatron-Core num_floating_point_operations (r0.9, before the s x s term was halved "
    "for causal masks)",
    /* "(causal)" alone, and the halving in other words: causal */
    "Megatron-Core num_floating_point_operations (causal)",
    "Megatron-Core num_floating_point_operations, causal attention (s x s term halved)",
  };
  ResPublishedCase *c[G_N_ELEMENTS (conv)];
  for (guint i = 0; i < G_N_ELEMENTS (conv); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "global_batch,tflops_per_gpu,flops_convention\n1,GPT,H100-SXM-80GB,16,16,1024,16,"
        "16384,4096,1,1,64,400,\"%s\"\n", conv[i]);
      c[i] = case_of (text);
      g_assert_true (c[i]->ready);
    }
  g_assert_cmpint (c[0]->convention, ==, MODEL_FLOPS_CAUSAL);
  g_assert_cmpint (c[1]->convention, ==, MODEL_FLOPS_MCORE);
  g_assert_cmpint (c[2]->convention, ==, MODEL_FLOPS_MCORE);
  g_assert_cmpint (c[3]->convention, ==, MODEL_FLOPS_MCORE);
  g_assert_cmpint (c[4]->convention, ==, MODEL_FLOPS_MCORE);
  g_assert_cmpint (c[5]->convention, ==, MODEL_FLOPS_CAUSAL);
  g_assert_cmpint (c[6]->convention, ==, MODEL_FLOPS_CAUSAL);
  g_assert_cmpfloat (c[0]->measured_step_s, <, c[1]->measured_step_s);
  for (guint i = 0; i < G_N_ELEMENTS (conv); i++)
    res_published_case_free (c[i]);

  /* The negation is read where it is said (causal_count_said), not as any negation word
   * in the cell: "causal" said not counted in other words (before it in its clause, right
   * after it, or later in its clause; the halving said not applied) is Megatron-Core's
   * non-causal count, and a "without" in another clause leaves a causal count causal.
   * The first eight read causal (only a few set phrases said otherwise), the next two
   * non-causal (any "without the" did); a row measured by TFLOP/s then measured its step
   * as much too short or too long as the two counts differ (7% on row 5's 7.1B at 4K
   * tokens). The same 16 H100s as above. */
  static const struct { const char *conv; ModelFlopConvention want; } said[] = {
    { "Megatron-Core num_floating_point_operations (causal mask not accounted for: full s x s "
      "attention)", MODEL_FLOPS_MCORE },
    { "Megatron-Core num_floating_point_operations; ignores causal masking", MODEL_FLOPS_MCORE },
    { "Megatron-Core num_floating_point_operations without causal halving of the attention "
      "term", MODEL_FLOPS_MCORE },
    { "Megatron-Core num_floating_point_operations, counted before causal masking was taken "
      "into account", MODEL_FLOPS_MCORE },
    { "Megatron-Core num_floating_point_operations (causal-mask halving not applied)",
      MODEL_FLOPS_MCORE },
    { "Megatron-Core num_floating_point_operations (does not account for the causal mask)",
      MODEL_FLOPS_MCORE },
    { "Megatron-Core num_floating_point_operations (causal=False)", MODEL_FLOPS_MCORE },
    { "Megatron-Core num_floating_point_operations \xe2\x80\x94 full attention, although the "
      "model itself is causal", MODEL_FLOPS_MCORE },
    { "Megatron-Core num_floating_point_operations (causal: s x s term halved; MTP layers "
      "counted without the embedding)", MODEL_FLOPS_CAUSAL },
    { "Megatron-Core num_floating_point_operations (causal; logits included, computed "
      "without the MTP head)", MODEL_FLOPS_CAUSAL },
    /* "and" or "with" joins what is said of another term, so the negation there is not
     * the mask's: causal. They read non-causal (the "without" before "causal" in its
     * clause, the "not counted" after it before any ',;()'), a step measured from TFLOP/s
     * on row 5 with these cells 0.800 s against the causal count's 0.747 s. */
    { "Megatron-Core num_floating_point_operations: model FLOPs without recompute and with "
      "the causal halving of the s x s term", MODEL_FLOPS_CAUSAL },
    { "Megatron-Core num_floating_point_operations (causal attention halved and recompute not "
      "counted)", MODEL_FLOPS_CAUSAL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (said); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "global_batch,tflops_per_gpu,flops_convention\n1,GPT,H100-SXM-80GB,16,16,1024,16,"
        "16384,4096,1,1,64,400,\"%s\"\n", said[i].conv);
      g_autoptr (ResPublishedCase) s = case_of (text);
      g_assert_true (s->ready);
      if (s->convention != said[i].want)
        g_error ("'%s': convention %d, expected %d", said[i].conv, s->convention, said[i].want);
    }
}

/* torch.compile on plain PyTorch FSDP: the pytorch-fsdp stack offers it (compile
 * "optional"), so a row that says so runs compiled; it was ignored, the row predicted
 * eager (an audit's 175B on 360 H200: +20.5% against +6.2% read as torchtitan's) */
static void
test_pytorch_fsdp_compile (void)
{
  ResPublishedCase *c = row ("H100-SXM-80GB", 64, 1, "FSDP (full shard)",
                             "PyTorch FSDP + torch.compile", "bf16");
  g_assert_null (c->skip_reason);
  g_assert_cmpstr (c->stack->name, ==, "pytorch-fsdp");
  g_assert_true (c->plan.compile);
  res_published_case_free (c);
  /* the explain line says the run compiled (it said only the stack's "fusion eager") */
  {
    g_autofree char *e = explain_one (
      "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
      "zero_stage_or_fsdp,framework,global_batch,step_time_s\n1,GPT,H100-SXM-80GB,64,16,1024,"
      "16,16384,1024,1,1,FSDP (full shard),PyTorch FSDP + torch.compile,64,1.0\n");
    if (strstr (e, "; compiled (torch.compile named)\n") == NULL)
      g_error ("explain lacks the compiled note:\n%s", e);
  }
  c = row ("H100-SXM-80GB", 64, 1, "FSDP (full shard)", "PyTorch FSDP", "bf16");
  g_assert_null (c->skip_reason);
  g_assert_false (c->plan.compile);
  res_published_case_free (c);
  /* negated, or "compiled" as prose: eager (the audit of this round) */
  static const char *const eager[] = { "PyTorch FSDP (no torch.compile)",
                                       "PyTorch FSDP, torch.compile disabled",
                                       "PyTorch FSDP without torch.compile",
                                       "PyTorch FSDP, torch.compile not enabled",
                                       "PyTorch FSDP, torch.compile: no",
                                       "PyTorch FSDP, torch.compile was off",
                                       "PyTorch FSDP, torch.compile (disabled)",
                                       /* said not stated, its value off in a bracket
                                        * (read compiled) */
                                       "PyTorch FSDP, torch.compile not stated (toml "
                                       "default compile = false)",
                                       /* compile = true said of another run or over-
                                        * ridden (the seventh audit: read compiled) */
                                       "PyTorch FSDP, compile = true in the 70B toml; this "
                                       "8B run was eager",
                                       "PyTorch FSDP, torch.compile not stated; the 70B run "
                                       "used compile = true",
                                       /* its other words for not stated, and
                                        * torchtitan's [compile] table said off (the
                                        * seventh audit: read compiled) */
                                       "PyTorch FSDP, torch.compile not specified",
                                       "PyTorch FSDP, torch.compile unknown",
                                       "PyTorch FSDP, compile.enable = false",
                                       /* unknown after a colon (the eighth audit) */
                                       "PyTorch FSDP, torch.compile: unknown" };
  /* a bracket about something else leaves it compiled (the third audit) */
  c = row ("H100-SXM-80GB", 64, 1, "FSDP (full shard)", "PyTorch FSDP + torch.compile (no AC)",
           "bf16");
  g_assert_true (c->plan.compile);
  res_published_case_free (c);
  /* "compiled" beside an eager baseline, "unknown" of something else, and another run
   * said eager stay compiled (the ninth audit: each read eager) */
  {
    static const char *const still[] = { "torchtitan, compiled (1.3x over the eager baseline)",
                                         "PyTorch FSDP, torch.compile (unknown mode)",
                                         "PyTorch FSDP, torch.compile enabled; the FSDP-only "
                                         "baseline ran eager",
                                         /* "this" of something else, a toml setting this
                                          * run shares (the tenth audit) */
                                         "PyTorch FSDP, torch.compile on; in this comparison "
                                         "the FSDP-only baseline ran eager",
                                         "PyTorch FSDP, compile=true (same as the baseline)" };
    for (guint i = 0; i < G_N_ELEMENTS (still); i++)
      {
        c = row ("H100-SXM-80GB", 64, 1, "FSDP (full shard)", still[i], "bf16");
        if (!c->plan.compile)
          g_error ("framework '%s' read eager", still[i]);
        res_published_case_free (c);
      }
  }
  /* torchtitan's [training] key with spaces, as its tomls write it (read eager) */
  c = row ("H100-SXM-80GB", 64, 1, "FSDP (full shard)", "PyTorch FSDP, [training] compile = true",
           "bf16");
  g_assert_true (c->plan.compile);
  res_published_case_free (c);
  /* torchtitan's [compile] table said on (read eager) */
  c = row ("H100-SXM-80GB", 64, 1, "FSDP (full shard)", "PyTorch FSDP, [compile] enable = true",
           "bf16");
  g_assert_true (c->plan.compile);
  res_published_case_free (c);
  /* ... and a value on in the bracket after "not stated" (a rule that took "not stated ("
   * as a verdict read it eager) */
  c = row ("H100-SXM-80GB", 64, 1, "FSDP (full shard)",
           "PyTorch FSDP, torch.compile not stated (the benchmark toml sets compile = true)",
           "bf16");
  g_assert_true (c->plan.compile);
  res_published_case_free (c);
  for (guint i = 0; i < G_N_ELEMENTS (eager); i++)
    {
      c = row ("H100-SXM-80GB", 64, 1, "FSDP (full shard)", eager[i], "bf16");
      g_assert_null (c->skip_reason);
      if (c->plan.compile)
        g_error ("framework '%s' read compiled", eager[i]);
      res_published_case_free (c);
    }
}

/* "V not stated": a virtual_pipeline cell of text, or a framework naming the interleaved
 * schedule, takes the rule every such row takes: the chunking the row's stack documents,
 * else the smallest V >= 2 that splits the layers (16 layers over pp 4: 16 % (4 V) == 0 at
 * V = 2); a note saying the schedule is not stated does not. Meta's stack (framework
 * "... 4D parallel ...") puts one layer slot in each model chunk (meta-llama3.json
 * defaults.pp_layers_per_chunk 1): 16 layers / (1 x 4 stages) = V = 4. */
static ResPublishedCase *
vp_row (const char *vp, const char *framework, const char *notes)
{
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "virtual_pipeline,framework,notes,global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,1,4,\"%s\",\"%s\",\"%s\",64,1.0\n",
    vp, framework, notes);
  return case_of (text);
}

static void
test_interleaved_unstated (void)
{
  static const struct { const char *vp, *fw, *notes; int want; } rows[] = {
    /* "Non-interleaved 1F1B" in the notes is no interleaving (it read V = 2: DLPerf's
     * Megatron-LM rows, audit of 8 Dec) */
    { "", "Megatron-LM", "Non-interleaved 1F1B schedule (2021 Megatron default).", 1 },
    { "", "Megatron-LM", "non interleaved 1F1B", 1 },
    { "", "Megatron-LM", "Schedule: interleaved 1F1B.", 2 },
    /* the audit of 8 Dec: the run's "non-interleaved" beside a compared one, the schedule
     * said off after its noun, another table's runs (each read V = 2) */
    { "", "Megatron-LM", "We compare against interleaved 1F1B in Fig. 5; this run uses "
      "non-interleaved 1F1B.", 1 },
    { "", "Megatron-LM", "The interleaved 1F1B schedule was not used because 16 layers do not "
      "split evenly.", 1 },
    { "", "Megatron-LM", "Unlike the interleaved 1F1B runs in Table 3, this baseline keeps one "
      "model chunk per stage.", 1 },
    /* V by its config key in the notes where the cell is empty (vp_key_in_notes): NeMo's
     * MLPerf INTERLEAVED_PIPELINE (MLPerf v3.1 GPT-3 rows read V = 1, +30..+55%), NeMo's
     * and Megatron's keys; not a key without a value, said off or another run's */
    { "", "NeMo", "conf/custom.yaml: INTERLEAVED_PIPELINE default 2, SEQ_PARALLEL True.", 2 },
    { "", "Megatron-Core", "virtual_pipeline_model_parallel_size: 4", 4 },
    { "", "Megatron-Core", "--num-virtual-stages-per-pipeline-rank 2 --overlap-grad-reduce", 2 },
    { "", "NeMo", "Interleaving (INTERLEAVED_PIPELINE) is set in config_common.sh, not stored.",
      1 },
    { "", "NeMo", "The baseline used INTERLEAVED_PIPELINE=4; this run is plain 1F1B.", 1 },
    { "", "Megatron-Core", "no virtual_pipeline_model_parallel_size set", 1 },
    /* the second audit of 8 Dec: the run's "non-interleaved" wins over a key (not a
     * baseline's "non-interleaved" in a sentence of its own), a key commented out or tried
     * and turned off is not the run's, and the layers per chunk by Megatron's key split
     * the layers as the cell's would (16 / (4 x 2) = 2; they read V = 1) */
    { "", "NeMo", "INTERLEAVED_PIPELINE=4 was tried but turned off for the final run "
      "(non-interleaved) due to memory.", 1 },
    { "", "NeMo", "Reference configs: GPT-175B INTERLEAVED_PIPELINE=4; GPT-20B (this row) "
      "non-interleaved.", 1 },
    { "", "NeMo", "Launcher script has the line '# INTERLEAVED_PIPELINE=4' commented out.", 1 },
    { "", "NeMo", "This run: INTERLEAVED_PIPELINE=2. A non-interleaved baseline from the same "
      "blog was 9% slower.", 2 },
    { "", "Megatron-Core", "num_layers_per_virtual_pipeline_stage=2 (interleaved schedule).", 2 },
    { "", "Megatron-Core", "--num-layers-per-virtual-pipeline-stage 1 "
      "--pipeline-model-parallel-size 4", 4 },
    { "interleaved", "torchtitan", "", 2 },
    { "", "torchtitan (FSDP2+TP+PP Interleaved 1F1B, torch.compile)", "", 2 },
    { "", "Megatron-LM", "virtual_pipeline: interleaved (V not stated)", 2 },
    { "", "Megatron-LM (2021)", "Interleaved schedule/microbatch not stated in README table.", 1 },
    { "4", "Megatron-LM", "", 4 },
    { "", "torchtitan (FSDP2+TP+PP 1F1B)", "", 1 },
    { "", "Meta internal (4D parallel, NCCLX)", "virtual_pipeline: interleaved (V not stated)", 4 },
    /* stated V wins over the stack's chunking */
    { "2", "Meta internal (4D parallel, NCCLX)", "", 2 },
    /* the stack's chunking applies only where the run is said to interleave */
    { "", "Meta internal (4D parallel, NCCLX)", "", 1 },
    /* V after a label: the cell's one number (these read vpp 1, 1F1B before) */
    { "VP=2", "Megatron-Core", "", 2 },
    { "vpp 4", "Megatron-Core", "", 4 },
    { "interleaved (V=4)", "Megatron-Core", "", 4 },
    { "V = 2", "Megatron-Core", "", 2 },
    { "interleaved, 2 chunks", "Megatron-Core", "", 2 },
    /* "1F1B" names the schedule, not V: the unstated rule, as "interleaved" (V = 2) */
    { "Interleaved 1F1B", "Megatron-Core", "", 2 },
    /* ... in either order: "1F1B interleaved" was V = 1 by the leading 1 of "1F1B"; with V
     * stated the one number is V */
    { "1F1B interleaved", "Megatron-Core", "", 2 },
    { "1F1B interleaved (V=4)", "Megatron-Core", "", 4 },
    { "1F1B", "Megatron-Core", "", 1 },
    /* said not to interleave: V = 1 (these read as "interleaved, V not stated", V = 2) */
    { "non-interleaved", "Megatron-Core", "", 1 },
    { "not interleaved", "Megatron-Core", "", 1 },
    { "no interleaving", "Megatron-Core", "", 1 },
    /* layers per virtual stage, not V: 16 layers / (pp 4 x 2) = V = 2; / (4 x 1) = 4 (these
     * read V = 2 and 1 as the number) */
    { "--num-layers-per-virtual-pipeline-stage 2", "Megatron-Core", "", 2 },
    { "layers per virtual stage: 1", "Megatron-Core", "", 4 },
    { "num_layers_per_virtual_pipeline_stage=4", "Megatron-Core", "", 1 },
    /* each layer a chunk: one layer per virtual stage, 16 / (4 x 1) = V = 4, as the flag
     * at 1 (the Zero Bubble paper's 1F1B-I took the unstated rule, V = 2; "one layer per
     * chunk" named no interleaving, V = 1; "1 layer per virtual stage" was V = 1 by its
     * number) */
    { "1F1B-I: interleaved 1F1B, maximum number of chunks (each transformer layer serves "
      "as a chunk)", "Megatron-LM", "", 4 },
    { "each layer is a chunk", "Megatron-Core", "", 4 },
    { "one layer per chunk", "Megatron-Core", "", 4 },
    { "one transformer layer per virtual stage", "Megatron-Core", "", 4 },
    { "1 layer per virtual stage", "Megatron-Core", "", 4 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = vp_row (rows[i].vp, rows[i].fw, rows[i].notes);
      if (!c->ready || c->plan.vpp != rows[i].want)
        g_error ("'%s' / '%s' / '%s': vpp %d, expected %d (%s)", rows[i].vp, rows[i].fw,
                 rows[i].notes, c->plan.vpp, rows[i].want, c->skip_reason ? c->skip_reason : "");
    }
  /* a schedule named in the cell: GPipe and DualPipe run as named (they read 1F1B); the
   * DualPipe row: 16 GPUs, pp 4 -> dp 4, 64 / 4 = 16 micro-batches, even and >= 2 x 4 */
  g_autoptr (ResPublishedCase) gp = vp_row ("GPipe", "torchtitan", "");
  g_assert_true (gp->ready);
  g_assert_cmpint (gp->plan.schedule, ==, PLAN_SCHED_GPIPE);
  g_autoptr (ResPublishedCase) dpp = vp_row ("DualPipe", "HAI-LLM", "");
  if (!dpp->ready)
    g_error ("DualPipe on HAI-LLM: %s", dpp->skip_reason);
  g_assert_cmpint (dpp->plan.schedule, ==, PLAN_SCHED_DUALPIPE);
  /* ... on a stack that runs them: Megatron-Core has neither, and such a row is skipped
   * with the stack's refusal, as predict refuses the plan (it was predicted as GPipe) */
  g_autoptr (ResPublishedCase) gp_mc = vp_row ("GPipe", "Megatron-Core", "");
  g_assert_false (gp_mc->ready);
  g_assert_nonnull (strstr (gp_mc->skip_reason, "the megatron-core stack does not offer it"));
  /* zero-bubble schedules are not modelled, and 3 layers a chunk do not split 16 layers
   * over 4 stages: skipped, saying so */
  g_autoptr (ResPublishedCase) zb = vp_row ("ZB-H1", "Megatron-Core", "");
  g_assert_false (zb->ready);
  g_assert_nonnull (strstr (zb->skip_reason, "zero-bubble"));
  g_autoptr (ResPublishedCase) odd = vp_row ("layers per virtual stage: 3", "Megatron-Core", "");
  g_assert_false (odd->ready);
  g_assert_nonnull (strstr (odd->skip_reason, "layers per virtual stage"));
}

/* Layers per virtual stage where the layers do not divide over pp: the embedding and the
 * loss take a layer slot each, as for a stated V (the Zero Bubble repository's split for
 * --num-layers-per-virtual-pipeline-stage with --allow-padding-num-layers: the layers
 * padded up to a multiple of pp, the two padding layers taken off the first and the last
 * model chunk). The paper's four models at one layer a chunk: (22 + 2) / (8 x 1) = V = 3,
 * (30 + 2) / 8 = 4, (46 + 2) / 16 = 3, (62 + 2) / 32 = 2, each read exactly as that V
 * written as a number. They were skipped ("1 layers per virtual stage do not split 22
 * layers over pp 8"). One GPU a stage, tp 1, 64 sequences of 1024. */
static ResPublishedCase *
vp_layers_row (int layers, int pp, const char *vp)
{
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "virtual_pipeline,framework,global_batch,step_time_s\n"
    "1,GPT,A100-SXM-80GB,%d,%d,1024,16,16384,1024,1,%d,\"%s\",Megatron-LM,64,1.0\n",
    pp, layers, pp, vp);
  return case_of (text);
}

static void
test_layers_per_chunk_slots (void)
{
  static const struct { int layers, pp, v; } rows[] = {
    { 22, 8, 3 }, { 30, 8, 4 }, { 46, 16, 3 }, { 62, 32, 2 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *v = g_strdup_printf ("%d", rows[i].v);
      g_autoptr (ResPublishedCase) flag
        = vp_layers_row (rows[i].layers, rows[i].pp, "--num-layers-per-virtual-pipeline-stage 1");
      g_autoptr (ResPublishedCase) chunk = vp_layers_row (
        rows[i].layers, rows[i].pp,
        "1F1B-I: interleaved 1F1B, maximum number of chunks (each transformer layer serves "
        "as a chunk)");
      g_autoptr (ResPublishedCase) num = vp_layers_row (rows[i].layers, rows[i].pp, v);
      g_assert_true (num->ready);
      ResPublishedCase *read[] = { flag, chunk };
      for (guint k = 0; k < G_N_ELEMENTS (read); k++)
        {
          if (!read[k]->ready || read[k]->plan.vpp != rows[i].v)
            g_error ("%d layers over pp %d: vpp %d, expected %d (%s)", rows[i].layers,
                     rows[i].pp, read[k]->plan.vpp, rows[i].v,
                     read[k]->skip_reason != NULL ? read[k]->skip_reason : "");
          g_assert_cmpint (read[k]->plan.schedule, ==, num->plan.schedule);
          g_assert_true (read[k]->plan.account_embedding && read[k]->plan.account_loss);
          g_assert_cmpint (read[k]->plan.account_embedding, ==, num->plan.account_embedding);
          g_assert_cmpint (read[k]->plan.first_chunk_layers, ==, num->plan.first_chunk_layers);
          g_assert_cmpint (read[k]->plan.last_chunk_layers, ==, num->plan.last_chunk_layers);
          /* the explain line says where V came from */
          g_assert_nonnull (read[k]->vpp_why);
          g_assert_nonnull (strstr (read[k]->vpp_why, "the embedding and the loss"));
        }
      g_assert_null (num->vpp_why);
    }
  /* neither split: 21 layers over pp 8 (21 and 23 are not multiples of 8) is still
   * skipped, now saying why and how to write V */
  g_autoptr (ResPublishedCase) odd
    = vp_layers_row (21, 8, "--num-layers-per-virtual-pipeline-stage 1");
  g_assert_false (odd->ready);
  g_assert_nonnull (strstr (odd->skip_reason, "evenly or with the embedding and the loss"));
  g_assert_nonnull (strstr (odd->skip_reason, "hint: write V"));
  /* layers that divide keep the even split: 24 / (8 x 1) = V = 3, no slots */
  g_autoptr (ResPublishedCase) even
    = vp_layers_row (24, 8, "--num-layers-per-virtual-pipeline-stage 1");
  g_assert_true (even->ready);
  g_assert_cmpint (even->plan.vpp, ==, 3);
  g_assert_false (even->plan.account_embedding);
}

/* Layers per chunk written with a count that is not 1: "11 layer per chunk" (88 layers
 * over pp 8) holds "1 layer per chunk" inside its "11", which read as one layer a chunk,
 * V = 88 / 8 = 11; the phrase now starts a word, and "N layer(s) per chunk" is N layers
 * per virtual stage as "--num-layers-per-virtual-pipeline-stage N" is: 88 / (8 x 11) =
 * V = 1, 48 / (8 x 2) = V = 3 (read V = 2 by its leading number before), 32 / (8 x 4) =
 * V = 1 ("4 layers per model chunk", read V = 4). "1 layer per chunk" and "one layer per
 * chunk" stay one layer a chunk: 88 / 8 = 11, 32 / 8 = 4. */
static void
test_layers_per_chunk_word (void)
{
  static const struct { int layers, pp; const char *vp; int want; } rows[] = {
    { 88, 8, "11 layer per chunk", 1 },
    { 48, 8, "2 layers per chunk", 3 },
    { 32, 8, "4 layers per model chunk", 1 },
    /* read so before */
    { 88, 8, "1 layer per chunk", 11 },
    { 32, 8, "one layer per chunk", 4 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = vp_layers_row (rows[i].layers, rows[i].pp, rows[i].vp);
      if (!c->ready || c->plan.vpp != rows[i].want)
        g_error ("'%s', %d layers over pp %d: vpp %d, expected %d (%s)", rows[i].vp,
                 rows[i].layers, rows[i].pp, c->plan.vpp, rows[i].want,
                 c->skip_reason != NULL ? c->skip_reason : "ready");
      /* the explain line says where V came from */
      g_assert_nonnull (c->vpp_why);
      g_assert_nonnull (strstr (c->vpp_why, "per virtual stage"));
    }
}

/* Zero Bubble's own schedule names (Qi et al., ICLR 2024, Table 4): the automatically
 * searched schedules ZB-1p and ZB-2p, however they are spelled, are zero-bubble schedules
 * and are skipped with the reason "ZB-H1" and "zero bubble" get. They were read as plain
 * 1F1B (vpp 1) and predicted: rows 9325-9332 of the paper's table, ZB-2p at +12 to +23%
 * because the bubble the schedule removes was still in the prediction. */
static void
test_zero_bubble_named (void)
{
  static const char *const cells[] = {
    "ZB-1p (automatically searched schedule, activation memory limited to pM_B)",
    "ZB-2p (automatically searched schedule, activation memory limited to 2pM_B)",
    "ZB-1p", "ZB-2p", "ZB1P", "ZB2P", "zb1p", "zb2p",
    /* with a space, and the V-shape schedules of Qi et al., "Pipeline Parallelism with
     * Controllable Memory" (NeurIPS 2024), built of the same split B and W passes: the
     * Zero Bubble repository's --zero-bubble-v-schedule, with
     * --zero-bubble-v-schedule-mem-setup half or min (these read as plain 1F1B) */
    "ZB 2p", "ZB 1p", "V-ZB", "V-Half", "V-Min",
    /* read so before */
    "ZB-H1", "zero bubble", "ZBV",
    /* prose that names 1F1B or "none" before the zero-bubble schedule the row ran, outside
     * a bracket (a rule that took any earlier schedule as the run's read them 1F1B) */
    "Megatron 1F1B replaced by ZB-2p", "instead of 1F1B, ZB-H1", "1F1B-based ZB-H1",
    "schedule: none -> ZB-1p",
  };
  for (guint i = 0; i < G_N_ELEMENTS (cells); i++)
    {
      g_autoptr (ResPublishedCase) c = vp_row (cells[i], "Megatron-LM", "");
      if (c->ready || c->skip_reason == NULL
          || strstr (c->skip_reason, "zero-bubble pipeline schedules (split backward passes) "
                                     "are not modelled") == NULL)
        g_error ("'%s': %s (vpp %d), expected the zero-bubble skip", cells[i],
                 c->skip_reason != NULL ? c->skip_reason : "ready", c->plan.vpp);
    }
  /* a zero-bubble name in a bracket after another schedule, "none" or "baseline" is what
   * the row is compared with, not what it ran: these are the 1F1B rows of a paper's
   * comparison, and were skipped as zero-bubble */
  static const char *const plain[] = { "1F1B (baseline for ZB-2p)", "none (ZB-2p in row 9)",
                                       "baseline (ZB-H1 in the next row)" };
  for (guint i = 0; i < G_N_ELEMENTS (plain); i++)
    {
      g_autoptr (ResPublishedCase) c = vp_row (plain[i], "Megatron-LM", "");
      if (!c->ready || c->plan.vpp != 1 || c->plan.schedule != PLAN_SCHED_1F1B)
        g_error ("'%s': %s (vpp %d), expected 1F1B", plain[i],
                 c->skip_reason != NULL ? c->skip_reason : "ready", c->plan.vpp);
    }

  /* the notes' zero-bubble schedule where the virtual_pipeline cell names none (empty or
   * 1): skipped as the cell's would be (it read 1F1B: the adversarial audit's "Zero-bubble
   * (ZB-H1) pipeline schedule from Qi et al."); not where the notes compare with it, say
   * it off or use "zero bubble" for a result */
  static const struct { const char *vp, *notes; gboolean skipped; } notes[] = {
    { "", "Zero-bubble (ZB-H1) pipeline schedule from Qi et al.", TRUE },
    { "1", "Schedule ZB-2p with 2p activation memory.", TRUE },
    { "", "Trained with the zero bubble pipeline schedule of Qi et al. 2024.", TRUE },
    { "", "1F1B; the ZB-H1 row is the next one, compared with this baseline.", FALSE },
    { "", "1F1B, not ZB-H1.", FALSE },
    { "", "Interleaving leaves almost zero bubble at this batch.", FALSE },
    { "", "Throughput is 12% lower than ZB-2p in the paper's Table 4.", FALSE },
    { "", "The Sea AI Lab entry for the same model used ZB-2p; this row is the Megatron 1F1B "
      "baseline from the same table.", FALSE },
    /* a V in the cell is the row's schedule */
    { "2", "Zero-bubble pipeline schedule discussed in Sec. 5.", FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (notes); i++)
    {
      g_autoptr (ResPublishedCase) c = vp_row (notes[i].vp, "Megatron-LM", notes[i].notes);
      const gboolean zb = !c->ready && c->skip_reason != NULL
                          && strstr (c->skip_reason, "zero-bubble") != NULL;
      if (zb != notes[i].skipped)
        g_error ("notes '%s': %s, expected %s", notes[i].notes,
                 c->skip_reason != NULL ? c->skip_reason : "ready",
                 notes[i].skipped ? "the zero-bubble skip" : "no zero-bubble skip");
    }
}

/* One row of the small GPT on 16 H100s (tp 2) measured by `column` alone, its cell
 * `word` then `figure` ("about " "380"), PaLM's FLOP convention. */
static ResPublishedCase *
approx_row (const char *column, const char *word, const char *figure)
{
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "global_batch,flops_convention,%s\n"
    "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,64,PaLM,%s%s\n", column, word, figure);
  return case_of (text);
}

/* Numbers as people write them. A row of 16 layers of 1024 on 16 H100s, tp 2 pp 1 (dp 8),
 * with the given seq_len, global_batch and sequence_parallel cells. */
/* (a step of 100 s: 64 sequences of 128K tokens in 1 s would be 7,441 TFLOP/s per GPU,
 * above the H100's peak, and refused as a measurement) */
static ResPublishedCase *
num_row (const char *seq, const char *batch, const char *sp)
{
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "sequence_parallel,global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,\"%s\",2,1,\"%s\",\"%s\",100\n",
    seq, sp, batch);
  return case_of (text);
}

static void
test_numbers_as_written (void)
{
  /* an approximate figure ("~64" GPUs, "~2.0" s, also the almost-equal sign): read as
   * the number, and said approximate where the measured step is named (these were read
   * as empty and reported missing) */
  {
    static const struct { const char *gpus, *step; } approx[] = {
      { "~64", "2.0" }, { "64", "~2.0" }, { "\xe2\x89\x88" "64", "\xe2\x89\x88" "2.0" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (approx); i++)
      {
        g_autofree char *text = g_strdup_printf (
          "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
          "global_batch,step_time_s\n"
          "1,GPT,H100-SXM-80GB,%s,16,1024,16,16384,1024,1,1,256,%s\n", approx[i].gpus,
          approx[i].step);
        g_autoptr (ResPublishedCase) c = case_of (text);
        if (!c->ready || c->n_gpus != 64 || c->measured_step_s != 2.0)
          g_error ("'%s' / '%s': %" G_GINT64_FORMAT " GPUs, %g s (%s)", approx[i].gpus,
                   approx[i].step, c->n_gpus, c->measured_step_s,
                   c->skip_reason ? c->skip_reason : "");
        g_assert_cmpint (strstr (c->measured_source, "approximate") != NULL, ==,
                         approx[i].step[0] != '2');
      }
  }
  /* a word before the figure that says it is approximate reads as the tilde does: the
   * figure, said approximate ("around 380" TFLOP/s, an MFU or a rate gave no measurement,
   * and the row fell to another column or was skipped); the column's cap still holds */
  {
    static const char *const words[] = { "~", "around ", "approx. ", "approx ",
                                         "approximately ", "about ", "roughly ",
                                         "Around ", "APPROX. " };
    static const struct { const char *column, *figure; } cols[] = {
      { "tflops_per_gpu", "380" }, { "mfu_pct", "38" }, { "tokens_per_s_per_gpu", "20000" },
      { "step_time_s", "2.0" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (cols); i++)
      {
        g_autoptr (ResPublishedCase) plain = approx_row (cols[i].column, "", cols[i].figure);
        g_assert_true (plain->ready);
        for (guint w = 0; w < G_N_ELEMENTS (words); w++)
          {
            g_autoptr (ResPublishedCase) c = approx_row (cols[i].column, words[w],
                                                         cols[i].figure);
            if (!c->ready || c->measured_step_s != plain->measured_step_s
                || !g_str_has_prefix (c->measured_source, cols[i].column)
                || strstr (c->measured_source, "approximate") == NULL)
              g_error ("%s '%s%s': ready %d, %g s against %g s, source %s (%s)",
                       cols[i].column, words[w], cols[i].figure, c->ready,
                       c->measured_step_s, plain->measured_step_s,
                       c->measured_source ? c->measured_source : "-",
                       c->skip_reason ? c->skip_reason : "");
          }
      }
    g_autoptr (ResPublishedCase) cap = case_of (
      "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
      "global_batch,tokens_per_s_per_gpu\n"
      "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,64,about 20000000\n");
    g_assert_false (cap->ready);
    g_assert_nonnull (strstr (cap->skip_reason, "at most 10000000"));
    /* a word that only starts like one, or the word with no figure: no figure */
    g_autoptr (ResPublishedCase) none = case_of (
      "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
      "global_batch,step_time_s\n"
      "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,64,aboutness 2\n");
    g_assert_false (none->ready);
    g_assert_nonnull (strstr (none->skip_reason, "no measured step time"));
    /* "circa" and "ca." date a figure more often than they round it: no figure after
     * them ("circa 2023" was read as 2023 TFLOP/s, "circa 2023: 380" too) */
    static const char *const dated[] = { "circa 2023", "circa 2023: 380", "Circa 2023",
                                         "ca. 2023", "ca. 2023: 380", "circa 380", "ca. 38",
                                         "CA. 380" };
    for (guint i = 0; i < G_N_ELEMENTS (cols); i++)
      for (guint d = 0; d < G_N_ELEMENTS (dated); d++)
        {
          g_autoptr (ResPublishedCase) c = approx_row (cols[i].column, "", dated[d]);
          if (c->ready || strstr (c->skip_reason, "no measured step time") == NULL)
            g_error ("%s '%s': ready %d, %g s from %s (%s)", cols[i].column, dated[d],
                     c->ready, c->measured_step_s,
                     c->measured_source ? c->measured_source : "-",
                     c->skip_reason ? c->skip_reason : "");
        }
    /* a count too, and the explain line says so as for "~16" */
    g_autofree char *e = explain_one (
      "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
      "global_batch,step_time_s\n"
      "1,GPT,H100-SXM-80GB,about 16,16,1024,16,16384,1024,2,1,64,2.0\n");
    assert_explains (e, "-> 16 GPUs (approximate as written)");
  }

  /* seq_len: thousands separators, and K / M as powers of two (context lengths: "8K" =
   * 8,192, Llama 3's "128K" = 131,072); "8K" read 8 before, "8,192" read 8 */
  static const struct { const char *seq; guint64 want; } seqs[] = {
    { "8192", 8192 }, { "8,192", 8192 }, { "8K", 8192 }, { "8k", 8192 }, { "8 K", 8192 },
    { "128K", 131072 }, { "4096 tokens", 4096 },
    /* the binary prefix (read as 8 before): 8Ki = 8 x 1,024 */
    { "8Ki", 8192 },
    /* after a label of the column's own (skipped as missing before) */
    { "seq 8192", 8192 }, { "seq_len=8K", 8192 }, { "Sequence length: 4096", 4096 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (seqs); i++)
    {
      g_autoptr (ResPublishedCase) c = num_row (seqs[i].seq, "64", "");
      if (!c->ready || c->model->max_positions != seqs[i].want)
        g_error ("seq_len '%s': %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT " (%s)",
                 seqs[i].seq, c->model ? c->model->max_positions : 0, seqs[i].want,
                 c->skip_reason ? c->skip_reason : "");
    }
  /* global_batch: "1,024" is 1,024; a batch in tokens over seq_len 8,192: 1,048,576 /
   * 8,192 = 128; "1M tokens": binary 2^20 / 8,192 = 128, decimal 10^6 / 8,192 = 122.07
   * (no whole number): 128; "16M tokens": 2,048 (Llama 3's 16M of 8K sequences) */
  static const struct { const char *batch; int want; } batches[] = {
    { "1,024", 1024 }, { "1048576 tokens", 128 }, { "1,048,576 tokens", 128 },
    { "1M tokens", 128 }, { "16M tokens", 2048 }, { "128 sequences", 128 },
    /* a fraction of M (refused as a fractional count before): 0.5 x 2^20 / 8,192 = 64
     * (0.5 x 10^6 / 8,192 = 61.04, not whole); 1.5 x 2^20 / 8,192 = 192 */
    { "0.5M tokens", 64 }, { "1.5M tokens", 192 },
    /* after a label of the column's own (skipped as missing before) */
    { "gbs=128", 128 }, { "GBS 512", 512 }, { "global batch: 1,024", 1024 },
    { "gbs 1M tokens", 128 },
    /* the magnitude as a word, read as M is (these were read as the bare 2, 4, ...):
     * 2 x 2^20 / 8,192 = 256 (2 x 10^6 / 8,192 = 244.1, not whole) */
    { "2 million tokens (8192 * 256)", 256 }, { "4 million tokens", 512 },
    { "2.0 million tokens", 256 }, { "1.5 million tokens", 192 },
    { "16 Million tokens", 2048 }, { "2 millions tokens", 256 },
    /* the binary prefix: 4 x 2^20 / 8,192 = 512 (these were not read as tokens) */
    { "4 Mi tokens", 512 }, { "4Mi tokens", 512 },
    /* sequences with the tokens beside them: the sequences */
    { "128 sequences (1M tokens)", 128 },
    /* sequences times their tokens, as OLMo-core's configs write a batch (refused as a
     * product): the factor beside seq_len 8,192, either side, with or without a label
     * or "tokens"; a product of tokens over seq_len where no factor is it: 512 x 16,384
     * / 8,192 = 1,024 */
    { "1024 * 8192 (tokens)", 1024 }, { "global_batch_size=256 * 8192", 256 },
    { "8192 x 64", 64 }, { "512 x 16384 tokens", 1024 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (batches); i++)
    {
      g_autoptr (ResPublishedCase) c = num_row ("8192", batches[i].batch, "");
      if (!c->ready || c->plan.global_batch != batches[i].want)
        g_error ("global_batch '%s': %d, expected %d (%s)", batches[i].batch,
                 c->plan.global_batch, batches[i].want, c->skip_reason ? c->skip_reason : "");
    }
  /* tokens that no single reading divides: 1,000,000 / 8,192 is not whole; "2K tokens"
   * over seq_len 1,000: decimal 2,000 / 1,000 = 2 and binary 2,048 / 1,000 not whole ->
   * 2 (one reading); over seq_len 8: both 250 and 256 -> no one reading */
  g_autoptr (ResPublishedCase) odd = num_row ("8192", "1000000 tokens", "");
  g_assert_false (odd->ready);
  g_assert_nonnull (strstr (odd->skip_reason, "is in tokens"));
  g_autoptr (ResPublishedCase) dec = num_row ("1000", "16K tokens", "");
  g_assert_true (dec->ready);
  g_assert_cmpint (dec->plan.global_batch, ==, 16);
  g_autoptr (ResPublishedCase) both = num_row ("8", "2K tokens", "");
  g_assert_false (both->ready);
  /* a product of tokens that is no whole count of 8,192-token sequences (1,000 x 3 =
   * 3,000) is skipped saying so; a product with no tokens and no factor that is seq_len
   * is still refused as a product */
  g_autoptr (ResPublishedCase) badprod = num_row ("8192", "1000 * 3 (tokens)", "");
  g_assert_false (badprod->ready);
  g_assert_nonnull (strstr (badprod->skip_reason, "is a product of tokens"));
  g_autoptr (ResPublishedCase) plainprod = num_row ("8192", "64 * 2", "");
  g_assert_false (plainprod->ready);
  g_assert_nonnull (strstr (plainprod->skip_reason, "goes on with a product"));
  /* the micro-batch too: "rank_microbatch_size=4 * 4096 (tokens)" at seq_len 4,096 is 4
   * sequences (refused as a product); 1,024 x 4,096 tokens a step over dp 8 and 4 a
   * micro-batch: 32 micro-batches */
  g_autoptr (ResPublishedCase) olmo = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,micro_batch,"
    "global_batch,step_time_s\n1,GPT,H100-SXM-80GB,8,16,1024,16,16384,4096,1,1,"
    "rank_microbatch_size=4 * 4096 (tokens),1024 * 4096 (tokens),10\n");
  if (!olmo->ready || olmo->plan.micro_batch != 4 || olmo->plan.global_batch != 1024
      || olmo->plan.grad_accum != 32)
    g_error ("OLMo-core batch: mbs %d gbs %d ga %d (%s)", olmo->plan.micro_batch,
             olmo->plan.global_batch, olmo->plan.grad_accum,
             olmo->skip_reason ? olmo->skip_reason : "");
  /* the audit's cell: 2 x 2^20 / 2,048 = 1,024 sequences (it was read as 2) */
  g_autoptr (ResPublishedCase) mil = num_row ("2048", "2 million tokens (2048 * 1024)", "");
  g_assert_true (mil->ready);
  g_assert_cmpint (mil->plan.global_batch, ==, 1024);
  /* "Ki" is binary alone: 16 x 1,024 / 1,000 is not whole, where "16K tokens" (above)
   * reads decimal 16 */
  g_autoptr (ResPublishedCase) ki = num_row ("1000", "16 Ki tokens", "");
  g_assert_false (ki->ready);
  g_assert_nonnull (strstr (ki->skip_reason, "is in tokens"));
  /* a magnitude word and no unit: the question, not 2 sequences */
  g_autoptr (ResPublishedCase) word = num_row ("8192", "2 million", "");
  g_assert_false (word->ready);
  g_assert_nonnull (strstr (word->skip_reason, "has a magnitude word but no unit"));
  /* a magnitude letter on another count is text, never the bare number: n_gpus "16K"
   * is not 16 (here: not stated, so dp cannot be derived) */
  g_autoptr (ResPublishedCase) k = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
    "step_time_s\n1,GPT,H100-SXM-80GB,16K,16,1024,16,16384,1024,1,1,64,1.0\n");
  g_assert_false (k->ready);
  g_assert_cmpint (k->n_gpus, !=, 16);
  /* ... and so is a magnitude word: "2 thousand" GPUs is not 2 (it was) */
  g_autoptr (ResPublishedCase) kw = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
    "step_time_s\n1,GPT,H100-SXM-80GB,2 thousand,16,1024,16,16384,1024,1,1,64,1.0\n");
  g_assert_false (kw->ready);
  g_assert_cmpint (kw->n_gpus, !=, 2);
  /* measurements as written: a rate with K / M is SI (31.5K tokens/s per GPU: step = 64 x
   * 1,024 tokens / (31,500 x 16) = 0.1300 s; it was not stated), TFLOP/s given in PFLOP/s
   * x 1000 (0.5 PFLOP/s = 500 TFLOP/s, the same step as "500"; it was read as 0.5), and an
   * MFU below 1 without a percent sign is a fraction (0.41 was read as 0.41%, a step 100
   * times too long, then refused "below 1%": below) */
  g_autoptr (ResPublishedCase) rk = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
    "tokens_per_s_per_gpu\n1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,64,"
    "31.5K tokens/s\n");
  g_assert_true (rk->ready);
  g_assert_cmpfloat (fabs (rk->measured_step_s - 64.0 * 1024 / (31500.0 * 16)), <, 1e-9);
  static const char *const tf[] = { "500", "0.5 PFLOP/s", "0.5 PF", "0.5 PFs",
                                    "0.5 petaFLOP/s", "0.5PF" };
  double tf_step[6];
  for (guint i = 0; i < G_N_ELEMENTS (tf); i++)
    {
      g_autofree char *tt = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "global_batch,tflops_per_gpu,flops_convention\n1,GPT,H100-SXM-80GB,16,16,1024,16,"
        "16384,1024,2,1,64,%s,6N (PaLM)\n", tf[i]);
      g_autoptr (ResPublishedCase) c = case_of (tt);
      g_assert_true (c->ready);
      tf_step[i] = c->measured_step_s;
    }
  for (guint i = 1; i < G_N_ELEMENTS (tf); i++)
    g_assert_cmpfloat (fabs (tf_step[0] - tf_step[i]), <, 1e-12);
  /* An MFU written as a fraction, as the PyTorch / IBM blog's tables print it ("0.68"):
   * from 0.05 to below 1 without a percent sign it is that fraction of the peak, the same
   * step as the percentage (0.41 -> 41%), said on the explain line; it was refused
   * "mfu_pct '0.41' is below 1%: a fraction, not a percentage?". Below 0.05 (a 4% MFU
   * nobody reports) the refusal and its hint stay; "0.41%" is 0.41% as written. */
  static const char *const mfu_cells[] = { "41", "0.41", "0.41 ", "0.05", "5", "0.41%",
                                            "0.41 (41%)" };
  ResPublishedCase *mfu[G_N_ELEMENTS (mfu_cells)];
  for (guint i = 0; i < G_N_ELEMENTS (mfu_cells); i++)
    {
      g_autofree char *tt = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "global_batch,mfu_pct,flops_convention\n1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,"
        "2,1,64,\"%s\",6 * N * D\n", mfu_cells[i]);
      mfu[i] = case_of (tt);
      if (!mfu[i]->ready)
        g_error ("mfu_pct '%s': %s", mfu_cells[i], mfu[i]->skip_reason);
    }
  /* ... and "0.41 (41%)", whose percent sign is the bracket's, not the 0.41's (it was
   * read as 0.41%, a step 100 times too long) */
  for (guint i = 1; i <= 6; i += (i == 2 ? 4 : 1))
    {
      g_assert_cmpfloat (fabs (mfu[i]->measured_step_s / mfu[0]->measured_step_s - 1), <, 1e-12);
      g_assert_cmpfloat (fabs (mfu[i]->published_mfu_pct - 41), <, 1e-9);
      g_assert_true (mfu[i]->mfu_as_fraction);
      g_assert_nonnull (strstr (mfu[i]->measured_source, "written as a fraction: 41%"));
    }
  g_assert_false (mfu[0]->mfu_as_fraction);
  g_assert_null (strstr (mfu[0]->measured_source, "fraction"));
  g_assert_cmpfloat (fabs (mfu[3]->measured_step_s / mfu[4]->measured_step_s - 1), <, 1e-12);
  /* "0.41%": a step 100 times the 41% one */
  g_assert_false (mfu[5]->mfu_as_fraction);
  g_assert_cmpfloat (fabs (mfu[5]->measured_step_s / mfu[0]->measured_step_s / 100 - 1), <, 1e-9);
  for (guint i = 0; i < G_N_ELEMENTS (mfu_cells); i++)
    res_published_case_free (mfu[i]);
  g_autoptr (ResPublishedCase) mf = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
    "mfu_pct,flops_convention\n1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,64,0.04,"
    "6 * N * D\n");
  g_assert_false (mf->ready);
  g_assert_cmpstr (mf->skip_reason, ==, "mfu_pct '0.04' is below 1%: a fraction, not a "
                   "percentage? (hint: write 4.0 for 4.0%)");
  /* A step derived from a rate column takes step_time_s's bound, a day: tokens 64 x 1024
   * = 65,536 over 16 GPUs at 1 token/s each is 4,096 s (kept); at 0.01 token/s 409,600 s
   * (refused, naming the column's unit); this GPT's PaLM count is about 1.51 GFLOP a token
   * (6N + 12 L H d s), so 0.001 TFLOP/s per GPU is 1.51e9 x 65,536 / (1e9 x 16) = 6,190 s
   * (kept) and 0.00001 TFLOP/s 619,000 s (refused). Such rows were measured at 4e5 to
   * 5e6 s and counted at -100% in the MAPE. */
  static const struct { const char *col, *cell; gboolean ready; } slow[] = {
    { "tokens_per_s_per_gpu", "1", TRUE },
    { "tokens_per_s_per_gpu", "0.01", FALSE },
    { "tokens_per_s_total", "0.1", FALSE },
    { "tflops_per_gpu", "0.001", TRUE },
    { "tflops_per_gpu", "0.00001", FALSE },
    { "mfu_pct", "1.0%", TRUE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (slow); i++)
    {
      g_autofree char *t = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "global_batch,%s,flops_convention\n1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,"
        "1,64,%s,6N (PaLM)\n", slow[i].col, slow[i].cell);
      g_autoptr (ResPublishedCase) c = case_of (t);
      g_assert_cmpint (c->ready, ==, slow[i].ready);
      if (slow[i].ready)
        g_assert_cmpfloat (c->measured_step_s, <=, 86400);
      else
        {
          g_assert_nonnull (strstr (c->skip_reason, "over a day per step"));
          g_assert_nonnull (strstr (c->skip_reason, slow[i].col));
        }
    }
  /* 6 N alone ("6ND", Kaplan / Chinchilla, "6 x params", an attention term said to be left
   * out) is PaLM's count without its 12 L H d s term, where it was read as PaLM's whole:
   * on this GPT (16 layers, 16 heads of 64, seq 1024) the term is 12 x 16 x 16 x 64 x
   * 1024 = 201,326,592 FLOPs a token, so at one MFU the 6N step is the PaLM step x 6N /
   * (6N + 201,326,592), N = model_spec_palm_params. Texts naming a source that counts
   * attention (PaLM, torchtitan, llm-foundry, nanoGPT) or with a "12" stay PaLM; the
   * Megatron formulas written with spaces ("72 B s ...", "96 B s ...") read as theirs. */
  static const struct { const char *text; int conv; gboolean six_n; } convs[] = {
    { "6ND", MODEL_FLOPS_PALM, TRUE },
    { "C = 6ND (Kaplan et al. 2020)", MODEL_FLOPS_PALM, TRUE },
    { "Chinchilla 6ND", MODEL_FLOPS_PALM, TRUE },
    { "6 x params x tokens", MODEL_FLOPS_PALM, TRUE },
    { "MFU excluding attention", MODEL_FLOPS_PALM, TRUE },
    { "6N + 12*L*H*Q*T (non-causal)", MODEL_FLOPS_PALM, FALSE },
    { "6N (PaLM)", MODEL_FLOPS_PALM, FALSE },
    { "nanoGPT estimate_mfu", MODEL_FLOPS_PALM, FALSE },
    /* PaLM by its first author; Korthikanti beside him keeps his count */
    { "MFU per Chowdhery et al. (2022)", MODEL_FLOPS_PALM, FALSE },
    { "MFU per Chowdhery et al. (2022) and Korthikanti et al. (2022)", MODEL_FLOPS_MEGATRON72,
      FALSE },
    /* llm-foundry's count in its other spellings (not recognised before) */
    { "LLM Foundry MFU", MODEL_FLOPS_PALM, FALSE },
    { "llmfoundry", MODEL_FLOPS_PALM, FALSE },
    { "72 B s l h^2 (1 + s/6h + V/12lh)", MODEL_FLOPS_MEGATRON72, FALSE },
    { "96 B s l h^2 (1 + s/6h + V/16lh)", MODEL_FLOPS_MEGATRON96, FALSE },
    /* MaxText's calculate_tflops_training_per_device (the A3 README's form was skipped as
     * not recognised), PaLM's attention term spelled out; halved for causal masks in
     * MaxText's later versions: the causal count */
    { "MaxText calculate_tflops_training_per_device: 6 x (FFN + QKV/out projections + "
      "logits) per token plus attention 12*L*s*h per token (non-causal)", MODEL_FLOPS_PALM,
      FALSE },
    { "MaxText TFLOP/s, attention halved for causal masking", MODEL_FLOPS_CAUSAL, FALSE },
    { "MaxText TFLOP/s, attention not halved for causal masking", MODEL_FLOPS_PALM, FALSE },
    { "6 x weights + 12 L s h per token", MODEL_FLOPS_PALM, FALSE },
    /* PaLM's author named only to leave his attention term out (read as PaLM's whole
     * count: audit of 7 Dec) */
    { "6N per token (Kaplan), not Chowdhery's attention term", MODEL_FLOPS_PALM, TRUE },
    { "Kaplan 6N, without PaLM's attention FLOPs", MODEL_FLOPS_PALM, TRUE },
  };
  double palm_step = 0, six_step = 0, six_ratio = 0, n6 = 0;
  for (guint i = 0; i < G_N_ELEMENTS (convs); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "global_batch,mfu_pct,flops_convention\n1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,"
        "2,1,64,40,\"%s\"\n", convs[i].text);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (!c->ready)
        g_error ("%s: %s", convs[i].text, c->skip_reason);
      g_assert_cmpint (c->convention, ==, convs[i].conv);
      g_assert_cmpint (c->flops_6n, ==, convs[i].six_n);
      if (i == 0)   /* "6ND" */
        {
          six_step = c->measured_step_s;
          six_ratio = c->flops_6n_ratio;
          n6 = 6.0 * (double) model_spec_palm_params (c->model);
        }
      if (i == 5)
        palm_step = c->measured_step_s;
    }
  g_assert_cmpfloat (fabs (six_step / palm_step - n6 / (n6 + 201326592.0)), <, 1e-12);
  g_assert_cmpfloat (fabs (six_ratio - n6 / (n6 + 201326592.0)), <, 1e-12);
  /* global_batch left empty with its parts given: micro_batch x grad_accum x dp (skipped
   * "missing global_batch" before). 16 GPUs at tp 2: dp 8; 2 x 4 x 8 = 64; with dp given
   * 4 (tp 2, pp 2): 2 x 4 x 4 = 32; without grad_accum: still missing */
  static const struct { const char *pp, *dp, *ga; int want; } acc[] = {
    { "1", "", "4", 64 }, { "2", "4", "4 (per DP rank)", 32 }, { "1", "", "", 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (acc); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,dp,"
        "micro_batch,grad_accum,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,%s,%s,2,\"%s\",,1.0\n",
        acc[i].pp, acc[i].dp, acc[i].ga);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (acc[i].want == 0)
        {
          g_assert_false (c->ready);
          g_assert_cmpstr (c->skip_reason, ==, "missing global_batch");
        }
      else if (!c->ready || c->plan.global_batch != acc[i].want)
        g_error ("grad_accum '%s': global_batch %d, expected %d (%s)", acc[i].ga,
                 c->plan.global_batch, acc[i].want, c->skip_reason ? c->skip_reason : "");
    }
  /* n_kv_heads as the attention's name (16 heads): multi-query is 1 K/V head, GQA with its
   * group count ("GQA-4" as in Ainslie et al., "GQA (4 groups)") that many (both were
   * read as multi-head, 16); a bare "GQA" gives no count: skipped */
  static const struct { const char *kv; guint64 want; } kvs[] = {
    { "MQA", 1 }, { "multi-query", 1 }, { "GQA-4", 4 }, { "GQA (4 groups)", 4 },
    { "4 (GQA)", 4 }, { "MHA", 16 }, { "GQA", 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (kvs); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,n_kv_heads,vocab,seq_len,tp,pp,"
        "global_batch,step_time_s\n1,GPT,H100-SXM-80GB,16,16,1024,16,\"%s\",16384,1024,1,1,"
        "64,1.0\n", kvs[i].kv);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (kvs[i].want == 0 ? c->ready
                           : (!c->ready || c->model->n_kv_heads != kvs[i].want))
        g_error ("n_kv_heads '%s': ready %d (%s)", kvs[i].kv, c->ready,
                 c->skip_reason ? c->skip_reason : "");
    }
  /* a length with a letter that is no magnitude ("8KiB") is not the bare 8 */
  g_autoptr (ResPublishedCase) kib = num_row ("8KiB", "64", "");
  g_assert_false (kib->ready);
  /* n_gpus in nodes: "2 nodes" was read as 2 GPUs (dp derived 1 at tp 2); nodes times
   * GPUs per node, written either way, is the count: 2 x 8 = 16 (tp 2: dp 8); a count of
   * nodes alone is skipped, saying so */
  static const struct { const char *gpus; gint64 want; } nodes[] = {
    { "2x8", 16 }, { "2 x 8 GPUs", 16 }, { "2 nodes x 8 GPUs", 16 },
    { "2 nodes, 8 GPUs per node", 16 }, { "2 nodes (16 GPUs)", 16 }, { "16 (2 nodes)", 16 },
    { "2 \xc3\x97 8", 16 }, { "16 H100s", 16 },
    /* a memory size after "x" is no count: 16 parts of 80 GB, not 16 x 80 */
    { "16x80GB", 16 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (nodes); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "global_batch,step_time_s\n1,GPT,H100-SXM-80GB,\"%s\",16,1024,16,16384,1024,2,1,"
        "64,1.0\n", nodes[i].gpus);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (!c->ready || c->n_gpus != nodes[i].want || c->plan.dp != 8)
        g_error ("n_gpus '%s': %" G_GINT64_FORMAT ", expected %" G_GINT64_FORMAT " (%s)",
                 nodes[i].gpus, c->n_gpus, nodes[i].want, c->skip_reason ? c->skip_reason : "");
    }
  /* n_gpus empty or with K, the sizes all stated: their product, where a K reading of
   * the cell agrees (tp 2 x pp 2 x dp 256 = 1,024 = "1K"; "1.1K" agrees with neither
   * 1,100 nor 1,126.4: still missing); these were skipped "missing n_gpus" */
  static const struct { const char *gpus; gint64 want; } sized[] = {
    { "", 1024 }, { "1K", 1024 }, { "1K GPUs", 1024 }, { "not stated", 1024 }, { "1.1K", 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (sized); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,dp,"
        "global_batch,step_time_s\n1,GPT,H100-SXM-80GB,\"%s\",16,1024,16,16384,1024,2,2,256,"
        "1024,1.0\n", sized[i].gpus);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (sized[i].want == 0 ? c->ready : (!c->ready || c->n_gpus != sized[i].want))
        g_error ("n_gpus '%s': ready %d, %" G_GINT64_FORMAT " (%s)", sized[i].gpus, c->ready,
                 c->n_gpus, c->skip_reason ? c->skip_reason : "");
    }
  g_autoptr (ResPublishedCase) n2 = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
    "step_time_s\n1,GPT,H100-SXM-80GB,2 nodes,16,1024,16,16384,1024,2,1,64,1.0\n");
  g_assert_false (n2->ready);
  g_assert_nonnull (strstr (n2->skip_reason, "counts nodes"));
  /* sequence_parallel: yes words on, no words off, "n/a" the stack's default (on with tp
   * 2 on megatron-core), anything else skipped (it was read as off) */
  static const struct { const char *sp; gboolean want; } sps[] = {
    { "yes", TRUE }, { "enabled", TRUE }, { "Y", TRUE }, { "SP", TRUE },
    { "\xe2\x9c\x93", TRUE }, { "yes (--sequence-parallel)", TRUE }, { "on", TRUE },
    { "no", FALSE }, { "off", FALSE }, { "disabled", FALSE }, { "N", FALSE },
    { "n/a", TRUE },
    /* a label, then its value ("SP off", "sp=false" read on: the label alone said yes) */
    { "SP off", FALSE }, { "sp=false", FALSE }, { "SP=True", TRUE },
    { "sequence_parallel: false", FALSE },
    /* SP named in longer text, negated or not; "none"; "Y" before a bracket */
    { "Megatron SP", TRUE }, { "no SP", FALSE }, { "without SP", FALSE },
    { "none", FALSE }, { "Y (TP)", TRUE }, { "no-SP", FALSE },
    /* "not used" / "unused" say off (skipped before) */
    { "not used", FALSE }, { "unused", FALSE },
    /* unstated: the stack's default (on with tp 2 on megatron-core) */
    { "\xe2\x80\x94", TRUE }, { "N.A.", TRUE },
    /* "w/o SP" (read on); "not enabled", a label said off (skipped, not recognised) */
    { "w/o SP", FALSE }, { "not enabled", FALSE },
    { "sequence parallelism was not used", FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (sps); i++)
    {
      g_autoptr (ResPublishedCase) c = num_row ("1024", "64", sps[i].sp);
      if (!c->ready || c->plan.sequence_parallel != sps[i].want)
        g_error ("sequence_parallel '%s': %d, expected %d (%s)", sps[i].sp,
                 c->plan.sequence_parallel, sps[i].want, c->skip_reason ? c->skip_reason : "");
    }
  /* a parallel size after its own name: "TP=2", "tp 2", "TP2" are tp 2 (16 GPUs: dp 8);
   * they read as not stated before, tp 1, dp 16 */
  static const char *const tps[] = { "TP=2", "tp 2", "TP2", "2 (TP)", "tp: 2" };
  for (guint i = 0; i < G_N_ELEMENTS (tps); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
        "step_time_s\n1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,%s,1,64,1.0\n", tps[i]);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (!c->ready || c->plan.tp != 2 || c->plan.dp != 8)
        g_error ("tp '%s': tp %d dp %d (%s)", tps[i], c->plan.tp, c->plan.dp,
                 c->skip_reason ? c->skip_reason : "");
    }
  /* a step time with its unit: 850 ms = 0.85 s (read as 850 s before), 1.5 min = 90 s */
  static const struct { const char *cell; double want; } steps[] = {
    { "0.85", 0.85 }, { "850 ms", 0.85 }, { "850ms", 0.85 }, { "0.85 s", 0.85 },
    { "1.5 min", 90 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
        "step_time_s\n1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,1,1,64,%s\n", steps[i].cell);
      g_autoptr (ResPublishedCase) c = case_of (text);
      g_assert_true (c->ready);
      g_assert_cmpfloat (fabs (c->measured_step_s - steps[i].want), <, 1e-12);
    }
  /* DeepSpeed-Ulysses is not Megatron's SP: skipped with the reason */
  g_autoptr (ResPublishedCase) uly = num_row ("1024", "64", "Ulysses");
  g_assert_false (uly->ready);
  g_assert_nonnull (strstr (uly->skip_reason, "DeepSpeed-Ulysses"));
  /* ... also beside a yes (read on): Ulysses is not Megatron's SP */
  g_autoptr (ResPublishedCase) uly_yes = num_row ("1024", "64", "yes (Ulysses, not Megatron SP)");
  g_assert_false (uly_yes->ready);
  g_assert_nonnull (strstr (uly_yes->skip_reason, "DeepSpeed-Ulysses"));
  g_autoptr (ResPublishedCase) x = num_row ("1024", "64", "x");
  g_assert_false (x->ready);
  g_assert_cmpstr (x->skip_reason, ==, "sequence_parallel 'x' not recognised (hint: yes or no)");
}

/* An unstated micro-batch under PP: torchtitan runs pp x stages per rank micro-batches
 * of the local batch. 64 GPUs, pp 4, tp 1 -> dp 16; global batch 512 -> local 32.
 * 1F1B: 32 / (4 x 1) = 8; interleaved (V = 2 for 16 layers on 4 stages, as in
 * test_interleaved_unstated): 32 / (4 x 2) = 4; Megatron-LM keeps micro-batches of 1;
 * a local batch of 33 (global 528) does not divide by 4 -> 1; a stated cell wins. */
static ResPublishedCase *
mb_row (const char *framework, int global, const char *micro)
{
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "micro_batch,framework,global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,64,16,1024,16,16384,1024,1,4,\"%s\",\"%s\",%d,1.0\n",
    micro, framework, global);
  return case_of (text);
}

/* Thousands grouped by spaces, as SI and typeset tables write them: a space, a no-break
 * space (U+00A0) or a thin space (U+2009) between groups reads as a comma does ("1 024"
 * was 1 GPU, "12 000" tokens/s 12); groups that are not thousands refuse the cell. The
 * small GPT on H100s, tp 2 pp 1, seq 1,024, batch 64 unless the cell is the batch. */
static void
test_spaced_thousands (void)
{
  /* n_gpus: 1 x 1,000 + 024 = 1,024 GPUs, the same for each separator */
  static const char *const gpus[] = { "1 024", "1\xc2\xa0" "024", "1\xe2\x80\x89" "024" };
  for (guint i = 0; i < G_N_ELEMENTS (gpus); i++)
    {
      g_autofree char *t = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "global_batch,step_time_s\n1,GPT,H100-SXM-80GB,\"%s\",16,1024,16,16384,1024,1,1,"
        "2048,1.0\n", gpus[i]);
      g_autoptr (ResCsv) csv = res_csv_parse (t, -1, "inline", NULL);
      g_assert_cmpint (res_published_row_gpus (csv, 0), ==, 1024);
      g_autoptr (ResPublishedCase) c = case_of (t);
      if (!c->ready || c->n_gpus != 1024)
        g_error ("n_gpus '%s': %" G_GINT64_FORMAT " GPUs (%s)", gpus[i], c->n_gpus,
                 c->skip_reason ? c->skip_reason : "");
    }
  /* rates: 12 000 tokens/s a GPU on 16 GPUs: step = 64 x 1,024 / (12,000 x 16) =
   * 65,536 / 192,000 = 0.34133 s (it was 65,536 / (12 x 16) = 341.3 s); 768 000
   * tokens/s in all: 65,536 / 768,000 = 0.085333 s */
  static const struct { const char *column, *cell; double want; } rates[] = {
    { "tokens_per_s_per_gpu", "12 000", 65536.0 / 192000 },
    { "tokens_per_s_per_gpu", "12\xe2\x80\x89" "000", 65536.0 / 192000 },
    { "tokens_per_s_total", "768 000 tokens/s", 65536.0 / 768000 },
    { "tokens_per_s_total", "768\xc2\xa0" "000", 65536.0 / 768000 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rates); i++)
    {
      g_autofree char *t = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "global_batch,%s\n1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,64,\"%s\"\n",
        rates[i].column, rates[i].cell);
      g_autoptr (ResPublishedCase) c = case_of (t);
      if (!c->ready || fabs (c->measured_step_s / rates[i].want - 1) > 1e-12)
        g_error ("%s '%s': %g s, expected %g (%s)", rates[i].column, rates[i].cell,
                 c->measured_step_s, rates[i].want, c->skip_reason ? c->skip_reason : "");
    }
  /* seq_len "8 192" = 8,192 and global_batch "1 024" = 1,024 sequences; "1 048 576
   * tokens" of 8,192 = 128 sequences */
  g_autoptr (ResPublishedCase) b = num_row ("8 192", "1 024", "");
  g_assert_true (b->ready);
  g_assert_cmpuint (b->model->max_positions, ==, 8192);
  g_assert_cmpint (b->plan.global_batch, ==, 1024);
  g_autoptr (ResPublishedCase) tok = num_row ("8 192", "1 048 576 tokens", "");
  g_assert_true (tok->ready);
  g_assert_cmpint (tok->plan.global_batch, ==, 128);
  /* groups that are not thousands (a short or long group, a first group of four, a comma
   * then a space) are refused, never read as their first group */
  static const struct { const char *column, *cell; } bad[] = {
    { "n_gpus", "1 02" }, { "n_gpus", "16 0000" }, { "global_batch", "1024 000" },
    { "tokens_per_s_per_gpu", "12 00" }, { "tokens_per_s_per_gpu", "1,024 000" },
    { "step_time_s", "1 5" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      const char *cols[] = { "n_gpus", "global_batch", "tokens_per_s_per_gpu", "step_time_s" };
      const char *vals[] = { "16", "64", "", "" };
      g_autoptr (GString) t = g_string_new ("row_id,model,gpu_type,n_layers,hidden,n_heads,"
                                            "vocab,seq_len,tp,pp,n_gpus,global_batch,"
                                            "tokens_per_s_per_gpu,step_time_s\n1,GPT,"
                                            "H100-SXM-80GB,16,1024,16,16384,1024,2,1");
      for (guint k = 0; k < G_N_ELEMENTS (cols); k++)
        g_string_append_printf (t, ",\"%s\"", strcmp (cols[k], bad[i].column) == 0
                                              ? bad[i].cell
                                              : k == 3 && strcmp (bad[i].column,
                                                                  "tokens_per_s_per_gpu") != 0
                                              ? "1.0" : vals[k]);
      g_string_append_c (t, '\n');
      g_autoptr (ResPublishedCase) c = case_of (t->str);
      if (c->ready || strstr (c->skip_reason, "grouped by spaces") == NULL)
        g_error ("%s '%s': %s, expected refused as garbled", bad[i].column, bad[i].cell,
                 c->ready ? "read" : c->skip_reason);
    }
  /* a group that binds to the word after it is no thousands group: "192 512-token
   * sequences" is 192 sequences of 512 tokens (it was read as 192,512 and skipped as not
   * divisible); "192 512 token sequences" is refused rather than read as 192,512 */
  g_autoptr (ResPublishedCase) hyph = num_row ("512", "192 512-token sequences", "");
  if (!hyph->ready || hyph->plan.global_batch != 192)
    g_error ("global_batch '192 512-token sequences': %d (%s), expected 192",
             hyph->plan.global_batch, hyph->skip_reason ? hyph->skip_reason : "");
  /* ... and so is a second quantity that is itself a spaced thousands value before a
   * hyphen compound: "192 4 096-token sequences" is 192 (refused as garbled) */
  g_autoptr (ResPublishedCase) hyph2 = num_row ("4096", "192 4 096-token sequences", "");
  if (!hyph2->ready || hyph2->plan.global_batch != 192)
    g_error ("global_batch '192 4 096-token sequences': %d (%s), expected 192",
             hyph2->plan.global_batch, hyph2->skip_reason ? hyph2->skip_reason : "");
  g_autoptr (ResPublishedCase) word = num_row ("512", "192 512 token sequences", "");
  g_assert_false (word->ready);
  g_assert_nonnull (strstr (word->skip_reason, "grouped by spaces"));
  /* a first group of one or two digits before a hyphen compound is a thousands value
   * where the group starts with 0 or the value is a multiple of 128: seq_len "4 096-token"
   * = 4,096, "8 192-token context" = 8,192; global_batch "2 048-sequence batches" = 2,048
   * and "1 536-sequence batch (6.3M tokens)" = 1,536 (these were read as 4, 8, 2 and 1) */
  static const struct { const char *seq, *batch; guint positions; int want; } hy[] = {
    { "4 096-token", "64", 4096, 64 }, { "8 192-token context", "64", 8192, 64 },
    { "1024", "2 048-sequence batches", 1024, 2048 },
    { "1024", "1 536-sequence batch (6.3M tokens)", 1024, 1536 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (hy); i++)
    {
      g_autoptr (ResPublishedCase) c = num_row (hy[i].seq, hy[i].batch, "");
      if (!c->ready || c->model->max_positions != hy[i].positions
          || c->plan.global_batch != hy[i].want)
        g_error ("seq_len '%s' global_batch '%s': %s, expected %u and %d", hy[i].seq,
                 hy[i].batch, c->skip_reason ? c->skip_reason : "read otherwise",
                 hy[i].positions, hy[i].want);
    }
  /* n_gpus "6 144-GPU" = 6,144 (it was read as 6): tp 2, dp 3,072 */
  g_autoptr (ResPublishedCase) g6144 = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
    "step_time_s\n1,GPT,H100-SXM-80GB,6 144-GPU,16,1024,16,16384,1024,2,1,6144,100\n");
  if (!g6144->ready || g6144->n_gpus != 6144)
    g_error ("n_gpus '6 144-GPU': %" G_GINT64_FORMAT " (%s), expected 6144", g6144->n_gpus,
             g6144->skip_reason ? g6144->skip_reason : "");
  /* neither reading plain ("8 500-token": 8,500 is no multiple of 128, and 8 a count of
   * 500-token sequences reads as well): refused */
  g_autoptr (ResPublishedCase) amb = num_row ("1024", "8 500-token sequences", "");
  g_assert_false (amb->ready);
  g_assert_nonnull (strstr (amb->skip_reason, "before a hyphenated unit"));
}

/* A global_batch given per GPU, device, rank or accelerator is the batch of one
 * data-parallel replica: x dp; per node, x the nodes where each node holds whole
 * replicas; a product written out is that product. Each was read as the global batch
 * ("8 per GPU" a global batch of 8). num_row: 16 H100s (8 a node), tp 2 pp 1, so dp =
 * 16 / 2 = 8, seq_len 1,024. */
static void
test_batch_per_gpu (void)
{
  static const struct { const char *batch; int want; } rows[] = {
    /* 8 x dp 8 = 64; 12 x 8 = 96 */
    { "8 per GPU", 64 }, { "8/GPU", 64 }, { "8 per device", 64 }, { "12 per rank", 96 },
    { "8 per accelerator", 64 }, { "8 sequences per GPU", 64 }, { "gbs 8 per GPU", 64 },
    /* 1M tokens of 1,024: binary 2^20 / 1,024 = 1,024 sequences (decimal 976.6, not
     * whole); x dp 8 = 8,192 */
    { "1M tokens per GPU", 8192 },
    /* as written, where it is per GPU x dp: 4 x 8 = 32; 16 x 2 = 32; every factor: 2 x
     * 4 x 2 = 16 and 4 x 4 x 2 = 32 (these stopped at the first factor: 8 and 16) */
    { "4 per device x 8 devices", 32 }, { "16 per node x 2 nodes", 32 },
    { "2 per GPU x 4 GPUs x 2 nodes", 16 }, { "4 per GPU x 4 GPUs per node x 2 nodes", 32 },
    /* 16 GPUs in nodes of 8 = 2 nodes, each 4 whole replicas of tp 2: 16 x 2 = 32 */
    { "16 per node", 32 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = num_row ("1024", rows[i].batch, "");
      if (!c->ready || c->plan.global_batch != rows[i].want)
        g_error ("global_batch '%s': %d, expected %d (%s)", rows[i].batch,
                 c->plan.global_batch, rows[i].want, c->skip_reason ? c->skip_reason : "");
    }
  /* the explain line says the per-GPU batch was read per data-parallel replica */
  g_autofree char *e = explain_one (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,8 per GPU,100\n");
  assert_explains (e, "-> 64 (8 micro-batches per step; 8 per GPU x dp 8: a batch per GPU "
                      "is per data-parallel replica)");
  /* skipped, never read as the global batch: tp 8 pp 2 on 16 GPUs is one replica over
   * both nodes (no node holds a whole one); no tp, pp nor dp: no dp to multiply by */
  static const struct { const char *tp, *pp, *batch, *why; } bad[] = {
    { "8", "2", "16 per node", "holds no whole number" },
    { "", "", "8 per GPU", "are not known" },
    /* a written product that is not per GPU x dp (64 devices, 4 x 64 = 256, on 16 GPUs of
     * dp 8: 4 x 8 = 32; it was read as 256) or names no GPUs or nodes */
    { "2", "1", "4 per device x 64 devices", "per data-parallel replica: 4 x dp 8 = 32" },
    { "2", "1", "16 per node x 4 nodes", "are 2 nodes of 8" },
    { "2", "1", "2 per GPU x 16", "no count of GPUs or nodes" },
    /* a count of DP ranks that is not the row's dp 8 */
    { "2", "1", "4 per GPU x 24 DP", "per data-parallel replica: 4 x dp 8 = 32" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *t = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,%s,%s,%s,100\n", bad[i].tp, bad[i].pp,
        bad[i].batch);
      g_autoptr (ResPublishedCase) c = case_of (t);
      if (c->ready || strstr (c->skip_reason, bad[i].why) == NULL)
        g_error ("global_batch '%s' (tp '%s' pp '%s'): %s, expected skipped with '%s'",
                 bad[i].batch, bad[i].tp, bad[i].pp, c->ready ? "read" : c->skip_reason,
                 bad[i].why);
    }
}

/* The audit's products on their own rows (tp 1, so dp = n_gpus): "2 per GPU x 8 GPUs x 2
 * nodes" on 16 GPUs = 32 and "4 per GPU x 8 GPUs per node x 6 nodes" on 48 = 192 (these
 * stopped at the first factor: 16 and 32). A batch per GPU equal to micro_batch, where
 * grad_accum is stated, is a micro-step's: x dp x grad_accum. */
static void
test_batch_per_gpu_product (void)
{
  static const struct { int gpus; const char *batch; int want; } rows[] = {
    { 16, "2 per GPU x 8 GPUs x 2 nodes", 32 },
    { 48, "4 per GPU x 8 GPUs per node x 6 nodes", 192 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *t = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,dp,"
        "global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,%d,16,1024,16,16384,1024,1,1,%d,%s,100\n", rows[i].gpus,
        rows[i].gpus, rows[i].batch);
      g_autoptr (ResPublishedCase) c = case_of (t);
      if (!c->ready || c->plan.global_batch != rows[i].want)
        g_error ("global_batch '%s' on %d GPUs: %d, expected %d (%s)", rows[i].batch,
                 rows[i].gpus, c->plan.global_batch, rows[i].want,
                 c->skip_reason ? c->skip_reason : "");
    }
  /* a factor that counts data-parallel replicas multiplies the replica's batch, checked
   * against dp: 96 GPUs, tp 2, dp 48: 4 x 48 = 192 (these were skipped as "a factor that
   * is no count of GPUs or nodes") */
  static const char *const replicas[] = { "4 per GPU x 48 DP ranks", "4 per GPU x 48 replicas",
                                          "4 per GPU \xc3\x97 48 DP", "4 per GPU x 48 DP" };
  for (guint i = 0; i < G_N_ELEMENTS (replicas); i++)
    {
      g_autofree char *t = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,dp,"
        "global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,96,16,1024,16,16384,1024,2,1,48,%s,100\n", replicas[i]);
      g_autoptr (ResPublishedCase) c = case_of (t);
      if (!c->ready || c->plan.global_batch != 192)
        g_error ("global_batch '%s' on dp 48: %d, expected 192 (%s)", replicas[i],
                 c->plan.global_batch, c->skip_reason ? c->skip_reason : "");
    }
  /* 16 GPUs, tp 2: dp 8; micro_batch 2, grad_accum 4. "2 per GPU" is micro_batch's: 2 x 8
   * x 4 = 64 (it was 2 x 8 = 16 with one micro-batch, grad_accum ignored); "8 per GPU" is
   * micro_batch x grad_accum, a step's: 8 x 8 = 64; "6 per GPU" is neither: skipped */
  static const struct { const char *batch; int want; } acc[] = {
    { "2 per GPU", 64 }, { "8 per GPU", 64 }, { "6 per GPU", 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (acc); i++)
    {
      g_autofree char *t = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "micro_batch,grad_accum,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,2,4,%s,100\n", acc[i].batch);
      g_autoptr (ResPublishedCase) c = case_of (t);
      if (acc[i].want == 0)
        {
          if (c->ready || strstr (c->skip_reason, "neither a micro-step's") == NULL)
            g_error ("global_batch '%s': %s, expected skipped as neither micro_batch nor a "
                     "step's", acc[i].batch, c->ready ? "read" : c->skip_reason);
          continue;
        }
      if (!c->ready || c->plan.global_batch != acc[i].want)
        g_error ("global_batch '%s' (micro_batch 2, grad_accum 4): %d, expected %d (%s)",
                 acc[i].batch, c->plan.global_batch, acc[i].want,
                 c->skip_reason ? c->skip_reason : "");
    }
  g_autofree char *e = explain_one (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "micro_batch,grad_accum,global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,2,4,2 per GPU,100\n");
  assert_explains (e, "x grad_accum 4: the batch per GPU is micro_batch's, a micro-step's");
}

static void
test_pp_microbatches (void)
{
  static const struct { const char *fw; int global; const char *micro; int want; } rows[] = {
    { "torchtitan (FSDP2+TP+PP 1F1B)", 512, "", 8 },
    { "torchtitan (FSDP2+TP+PP Interleaved 1F1B)", 512, "", 4 },
    { "Megatron-LM", 512, "", 1 },
    { "torchtitan (FSDP2+TP+PP 1F1B)", 528, "", 1 },
    { "torchtitan (FSDP2+TP+PP 1F1B)", 512, "2", 2 },
    /* the size after a label of its own (these read as not stated: 1 on Megatron-LM, the
     * stack's 8 on torchtitan) */
    { "Megatron-LM", 512, "MBS 2", 2 },
    { "Megatron-LM", 512, "mbs=2, gas=8", 2 },
    { "Megatron-LM", 512, "micro batch size: 4", 4 },
    { "Megatron-LM", 512, "micro-batch 2", 2 },
    { "torchtitan (FSDP2+TP+PP 1F1B)", 512, "per-device batch 2", 2 },
    { "Megatron-LM", 512, "batch per GPU: 2", 2 },
    /* a table's dash is not stated: the stack's count */
    { "torchtitan (FSDP2+TP+PP 1F1B)", 512, "\xe2\x80\x94", 8 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = mb_row (rows[i].fw, rows[i].global, rows[i].micro);
      if (!c->ready || c->plan.micro_batch != rows[i].want)
        g_error ("'%s' global %d micro '%s': micro_batch %d, expected %d (%s)", rows[i].fw,
                 rows[i].global, rows[i].micro, c->plan.micro_batch, rows[i].want,
                 c->skip_reason ? c->skip_reason : "");
    }
}

/* Micro-batch labels that read as 1 before, on 64 GPUs, tp 1, global batch 512 (dp 16 at
 * pp 4, dp 64 at pp 1):
 *  - micro-batch labels: "batch/GPU 4", MaxText's "per_device_batch_size=8" and "pdbs=8",
 *    beside "mbs=8" and "per-device batch 8", which were read;
 *  - a local batch (torchtitan's "local_batch_size=32", "LBS 32", "local batch size 32"):
 *    at pp 1 the micro-batch; under PP split as the stack splits it: torchtitan pp x
 *    stages per rank, 32 / (4 x 1) = 8 under 1F1B; Megatron-LM its micro-batches of one
 *    sample; torchtitan where 16 / 4 is whole (4), and 30 / 4 is not: one-sample, as for
 *    an unstated micro-batch;
 *  - in the notes where the cell is empty ("local batch size 32, global batch size 512",
 *    "MBS 2"), all labels agreeing; two sizes ("MBS 2 ... MBS 4") are no reading;
 *  - a cell that says something but gives no size ("auto", "mbs 2 or mbs 4") is refused,
 *    where it was 1; an empty cell and "not stated" keep the rule for an unstated one. */
static ResPublishedCase *
mb_label_row (const char *framework, int pp, const char *micro, const char *notes)
{
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "micro_batch,framework,global_batch,step_time_s,notes\n"
    "1,GPT,H100-SXM-80GB,64,16,1024,16,16384,1024,1,%d,\"%s\",\"%s\",512,1.0,\"%s\"\n",
    pp, micro, framework, notes);
  return case_of (text);
}

static void
test_micro_batch_labels (void)
{
  static const char *const tt = "torchtitan (FSDP2+TP+PP 1F1B)";
  static const struct { const char *fw; int pp; const char *micro, *notes; int want; } rows[] = {
    { "Megatron-LM", 4, "batch/GPU 4", "", 4 },
    { "Megatron-LM", 4, "batch / GPU: 4", "", 4 },
    { "MaxText", 1, "per_device_batch_size=8", "", 8 },
    { "MaxText", 1, "pdbs=8", "", 8 },
    { "Megatron-LM", 4, "mbs=8", "", 8 },
    { "Megatron-LM", 4, "per-device batch 8", "", 8 },
    { tt, 1, "local_batch_size=4", "", 4 },
    { tt, 1, "LBS 4", "", 4 },
    { tt, 1, "local batch size 8", "", 8 },
    { tt, 1, "--training.local_batch_size=2", "", 2 },
    { tt, 4, "local_batch_size=32", "", 8 },
    { tt, 4, "LBS 32", "", 8 },
    { tt, 4, "local batch size 16", "", 4 },
    { tt, 4, "local batch size 30", "", 1 },
    { "Megatron-LM", 4, "LBS 32", "", 1 },
    /* in the notes, the cell empty or saying nothing */
    { tt, 4, "", "Table 5: local batch size 32, global batch size 512", 8 },
    { tt, 4, "\xe2\x80\x94", "local batch size 32", 8 },
    { "Megatron-LM", 4, "", "MBS 2, GBS 512", 2 },
    { "Megatron-LM", 4, "", "MBS not stated (the script's default 1 assumed)", 1 },
    { "Megatron-LM", 4, "", "MBS 2 for the first runs, MBS 4 later", 1 },
    /* a micro-batch label in the notes wins over a local batch there */
    { "Megatron-LM", 4, "", "LBS 8 (local batch per pipeline step), MBS 2", 2 },
    /* a size in tokens is no batch of sequences (read as 4,096 and 16 sequences) */
    { "Megatron-LM", 4, "", "batch/GPU 4096 tokens", 1 },
    { "Megatron-LM", 4, "", "micro_batch_size: 16 tokens", 1 },
    { "Megatron-LM", 4, "", "mbs 16 tok", 1 },
    { "Megatron-LM", 4, "", "MBS 2 (4096 tokens)", 2 },
    /* the notes' label is read only where it reads as the run's setting: at the start of
     * a clause or among config words, no negation nor other runs before it, no prose after
     * its number (these read 4 or 8) */
    { "Megatron-LM", 4, "", "previous work used mbs=4", 1 },
    { "Megatron-LM", 4, "", "No mbs 4 runs.", 1 },
    { tt, 1, "", "lbs = 8 (pounds)", 1 },
    { tt, 1, "", "weighs 8 lbs", 1 },
    { "Megatron-LM", 4, "", "other runs: mbs=4", 1 },
    { "Megatron-LM", 4, "", "the baseline used mbs 4", 1 },
    { "Megatron-LM", 4, "", "Megatron-LM used MBS 4", 1 },
    { "Megatron-LM", 4, "", "MBS 4 runs were slower", 1 },
    { "Megatron-LM", 4, "", "TP 2 PP 4 MBS 2", 2 },
    { "Megatron-LM", 4, "", "tp=2 mbs=4", 4 },
    { "Megatron-LM", 4, "", "flags: --tp 2 --micro-batch-size 2", 2 },
    { "Megatron-LM", 4, "", "No activation checkpointing. MBS 2 (sequences)", 2 },
    { tt, 1, "", "LBS = 8", 8 },
    /* a derivation in the notes: the label's value is the expression's result, not its
     * first term (read as 512 and 16, then refused) */
    { "Megatron-LM", 4, "", "[derived: microbatch size = 512 / (16 x 16) = 2]", 2 },
    { tt, 1, "", "local batch = 512 / 64 = 8, from the config", 8 },
    /* ... and an expression with no result is no size */
    { "Megatron-LM", 4, "", "mbs = 512 / dp", 1 },
    /* ... while a unit after '/' and a product keep the size per unit (a rule that took
     * every '/' and 'x' for an expression read 1, or the product, 192) */
    { "Megatron-LM", 4, "", "micro-batch size 2/GPU, global batch 512", 2 },
    { "Megatron-LM", 4, "mbs 4 / GPU", "", 4 },
    { "Megatron-LM", 4, "", "micro-batch size 4 x 4096 tokens", 4 },
    { "Megatron-LM", 4, "", "micro-batch size 4 x 16 = 64 sequences per step", 4 },
    { "Megatron-LM", 4, "", "micro batch size 2 x 2 accumulation steps = 4 per rank", 2 },
    { tt, 1, "", "local batch size 4 x 64 GPUs = 256 global", 4 },
    /* ... a word after '/' that is a list's next item or a unit, two models' sizes, a
     * quotient with a unit before its result, a degree's name before its result (the
     * seventh audit: a rule that took every word after '/' but a few units for a
     * divisor read each 1) */
    { "Megatron-LM", 4, "", "micro-batch size 4 / global batch 512", 4 },
    { "Megatron-LM", 4, "", "mbs 4 / dp 16 / gbs 512", 4 },
    { "Megatron-LM", 4, "", "micro-batch size 2 / DP rank", 2 },
    { "Megatron-LM", 4, "", "micro-batch size 4/2 (7B/13B)", 4 },
    { "Megatron-LM", 4, "", "micro batch size 32 / 16 GPUs = 2", 2 },
    { "Megatron-LM", 4, "", "mbs = 512 / dp = 32", 32 },
    /* ... and an '=' of another clause is no result (the eighth audit: read 1, or 2) */
    { "Megatron-LM", 4, "", "micro batch size 4/2 for 8B/70B (GBS = 512 for both)", 4 },
    { "Megatron-LM", 4, "", "micro-batch size 4/8 (TP=2)", 4 },
    /* ... nor a label's '=' right after its word (the ninth audit: read 2) */
    { "Megatron-LM", 4, "", "MBS 4 / 8 TP=2", 4 },
    /* ... nor a result that is not the quotient, or no number (the tenth audit: read 2,
     * or 1) */
    { "Megatron-LM", 4, "", "MBS 4 / 8 TP = 2", 4 },
    { "Megatron-LM", 4, "", "MBS 4 / 16 DP = GBS 512", 4 },
    { "Megatron-LM", 4, "", "MBS 4 / 2 TP = 2 ranks", 4 },
    /* ... while a result checked as the quotient stands before prose (read 8, refused) */
    { "Megatron-LM", 4, "", "micro-batch size 8 / 2 = 4 after halving for memory", 4 },
    /* a cell that defers to the notes or the stack reads as an empty one (they were
     * refused, and read as 1 before) */
    { "Megatron-LM", 4, "see notes", "MBS 2, GBS 512", 2 },
    { "Megatron-LM", 4, "(see notes)", "MBS 2", 2 },
    { "Megatron-LM", 4, "See notes.", "", 1 },
    { "Megatron-LM", 4, "see notes", "MBS 2 for the first runs, MBS 4 later", 1 },
    { "Megatron-LM", 4, "see notes", "MBS 2 ... MBS 4", 1 },
    { "Megatron-LM", 4, "default", "", 1 },
    { "Megatron-LM", 4, "Default", "MBS 2", 2 },
    { tt, 4, "default", "", 8 },
    { tt, 4, "", "", 8 },
    /* the cell wins over the notes */
    { "Megatron-LM", 4, "4", "MBS 2", 4 },
    { "Megatron-LM", 4, "", "", 1 },
    { "Megatron-LM", 4, "not stated", "", 1 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = mb_label_row (rows[i].fw, rows[i].pp, rows[i].micro,
                                                     rows[i].notes);
      if (!c->ready || c->plan.micro_batch != rows[i].want)
        g_error ("'%s' pp %d micro '%s' notes '%s': micro_batch %d, expected %d (%s)",
                 rows[i].fw, rows[i].pp, rows[i].micro, rows[i].notes, c->plan.micro_batch,
                 rows[i].want, c->skip_reason ? c->skip_reason : "");
    }
  /* an unstated micro-batch beside a stated accumulation is the global batch over dp x
   * its micro-batches: 512 / (16 x 8) = 4 at pp 4 (Megatron-LM's one-sample micro-
   * batches took 1, and torchtitan's pp x V split 512 / 16 / 4 = 8, the cell unread) */
  static const char *const ga_fw[] = { "Megatron-LM", tt };
  for (guint i = 0; i < G_N_ELEMENTS (ga_fw); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "micro_batch,grad_accum,framework,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,64,16,1024,16,16384,1024,1,4,,8,\"%s\",512,1.0\n", ga_fw[i]);
      g_autoptr (ResPublishedCase) c = case_of (text);
      g_assert_true (c->ready);
      g_assert_cmpint (c->plan.micro_batch, ==, 4);
      g_assert_cmpstr (c->micro_batch_why, ==, "global_batch 512 / (dp 16 x grad_accum 8)");
    }
  /* --explain says how a local batch was split and where it was read */
  g_autoptr (ResPublishedCase) n = mb_label_row (tt, 4, "", "local batch size 32");
  g_assert_cmpstr (n->micro_batch_why, ==, "the local batch 32 in the notes over pp x V "
                   "micro-batches, the stack's split");
  g_autoptr (ResPublishedCase) plain = mb_label_row (tt, 4, "2", "");
  g_assert_null (plain->micro_batch_why);

  static const char *const refused[] = { "auto", "mbs 2 or mbs 4", "large" };
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr (ResPublishedCase) c = mb_label_row ("Megatron-LM", 4, refused[i], "");
      g_assert_false (c->ready);
      g_autofree char *want = g_strdup_printf ("micro_batch '%s': no micro-batch size read",
                                               refused[i]);
      if (c->skip_reason == NULL || !g_str_has_prefix (c->skip_reason, want))
        g_error ("'%s': %s", refused[i], c->skip_reason ? c->skip_reason : "(ready)");
    }
  /* a cell giving its size in tokens is refused saying so (read as that many sequences) */
  static const char *const in_tokens[] = { "16 tokens", "micro_batch_size: 16 tokens",
                                           "batch/GPU 4096 tokens", "4096 Tokens" };
  for (guint i = 0; i < G_N_ELEMENTS (in_tokens); i++)
    {
      g_autoptr (ResPublishedCase) c = mb_label_row ("Megatron-LM", 4, in_tokens[i], "");
      g_assert_false (c->ready);
      g_autofree char *want = g_strdup_printf ("micro_batch '%s': a size in tokens is no "
                                               "micro-batch of sequences", in_tokens[i]);
      if (c->skip_reason == NULL || !g_str_has_prefix (c->skip_reason, want))
        g_error ("'%s': %s", in_tokens[i], c->skip_reason ? c->skip_reason : "(ready)");
    }
  /* the global batch from its parts takes a labelled micro-batch too: 4 x 2 x 64 = 512 */
  g_autoptr (ResPublishedCase) parts = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "micro_batch,grad_accum,framework,global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,64,16,1024,16,16384,1024,1,1,local_batch_size=4,2,torchtitan,,1.0\n");
  g_assert_true (parts->ready);
  g_assert_cmpint (parts->plan.global_batch, ==, 512);
  g_assert_cmpint (parts->plan.micro_batch, ==, 4);
}

/* A rounded token batch whose exact product follows in brackets, over seq_len 4,096 (16
 * GPUs, tp 2: dp 8): "2.95M tokens (8 x 90 x 4096)" is 2,949,120 tokens, inside 2.95M's
 * rounding (2,945,000 .. 2,955,000), 720 sequences (it was refused: no reading of 2.95M
 * divides by 4,096); the product in sequences ("(8 x 90)"), with the multiplication
 * sign, an '=' or "tokens" in the bracket, or a coarser figure ("3M", "~2.9M") alike; a
 * product inside "1M"'s rounding wins over the binary reading (248, not 256); one that
 * misses the figure (8 x 91 x 4096 = 2,981,888) is no reading, and the row is refused as
 * before. */
static void
test_batch_token_product (void)
{
  static const struct { const char *batch; int want; } rows[] = {
    { "2.95M tokens (8 x 90 x 4096)", 720 },
    { "2.95M tokens (8 \xc3\x97 90 \xc3\x97 4096)", 720 },
    { "2.95M tokens (8*90*4096)", 720 },
    { "2.95M tokens (= 720 x 4,096)", 720 },
    { "2.95M tokens (720 x 4096 tokens)", 720 },
    { "2.95M tokens (8 x 90)", 720 },
    { "~2.9M tokens (8 x 90 x 4096)", 720 },
    { "3M tokens (720 x 4096)", 720 },
    { "2,949,120 tokens", 720 },
    { "1M tokens (248 x 4096)", 248 },
    { "1M tokens (8 x 32 x 4096)", 256 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = num_row ("4096", rows[i].batch, "");
      if (!c->ready || c->plan.global_batch != rows[i].want)
        g_error ("global_batch '%s': %d, expected %d (%s)", rows[i].batch,
                 c->plan.global_batch, rows[i].want, c->skip_reason ? c->skip_reason : "");
    }
  static const char *const missed[] = { "2.95M tokens (8 x 91 x 4096)", "2.95M tokens",
                                        "2.95M tokens (8 x 90 x 4096 x 2)",
                                        "2.95M tokens (about 720 x 4096)" };
  for (guint i = 0; i < G_N_ELEMENTS (missed); i++)
    {
      g_autoptr (ResPublishedCase) c = num_row ("4096", missed[i], "");
      g_assert_false (c->ready);
      if (c->skip_reason == NULL || strstr (c->skip_reason, "is in tokens") == NULL)
        g_error ("'%s': %s", missed[i], c->skip_reason ? c->skip_reason : "(ready)");
    }
}

/* The gradient reduce dtype a cell states, and IBM's fms-fsdp by name (its bfSixteen
 * policy reduces in bf16; the pytorch-fsdp stack's fp32 doubled its HSDP rows' traffic);
 * fms-fsdp's "selective" checkpointing of an unstated share of blocks is skipped. A row of
 * the small GPT on 16 H100s under FSDP. */
static void
test_grad_reduce_dtype (void)
{
  static const struct { const char *fw, *notes; PlanPrecision want; } rows[] = {
    { "PyTorch FSDP", "", PLAN_PREC_FP32 },   /* the pytorch-fsdp stack's */
    { "PyTorch FSDP", "MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16)",
      PLAN_PREC_BF16 },
    { "fms-fsdp (PyTorch FSDP)", "", PLAN_PREC_BF16 },
    { "PyTorch FSDP + IBM foundation-model-stack Llama", "", PLAN_PREC_BF16 },
    { "fms-fsdp", "reduce_dtype=torch.float32", PLAN_PREC_FP32 },
    { "Megatron-LM", "grad_reduce_in_fp32=False", PLAN_PREC_BF16 },
    { "Megatron-LM", "grad_reduce_in_fp32: true", PLAN_PREC_FP32 },
    /* Megatron's own flag (read fp32 before: audit of 7 Dec) */
    { "Megatron-LM", "--use-distributed-optimizer --grad-reduce-in-bf16", PLAN_PREC_BF16 },
    { "PyTorch FSDP", "gradients reduced in bf16", PLAN_PREC_BF16 },
    /* another tensor's collective, another run (the regression audit of 7 Dec) */
    { "PyTorch FSDP", "TP reduce-scatter in bf16; grads all-reduced in fp32", PLAN_PREC_FP32 },
    { "PyTorch FSDP", "reduce-scatter in bf16 for the logits", PLAN_PREC_FP32 },
    { "Megatron-LM", "loss all-reduce dtype fp32", PLAN_PREC_FP32 },
    { "PyTorch FSDP", "gradients reduced in bf16 in the baseline; this run reduces in fp32",
      PLAN_PREC_FP32 },
    { "fms-fsdp", "gradients all-reduced in fp32", PLAN_PREC_FP32 },
    { "Megatron-LM (compared against IBM fms-fsdp)", "", PLAN_PREC_FP32 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "zero_stage_or_fsdp,framework,notes,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,1,1,FSDP,\"%s\",\"%s\",16,1.0\n",
        rows[i].fw, rows[i].notes);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (!c->ready || c->plan.grad_dtype != rows[i].want)
        g_error ("'%s' / '%s': grad dtype %d (%s)", rows[i].fw, rows[i].notes,
                 c->plan.grad_dtype, c->skip_reason ? c->skip_reason : "");
    }
  g_autoptr (ResPublishedCase) sel = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "zero_stage_or_fsdp,framework,recompute,global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,1,1,FSDP,fms-fsdp,"
    "selective activation checkpointing,16,1.0\n");
  g_assert_false (sel->ready);
  g_assert_nonnull (strstr (sel->skip_reason, "fms-fsdp's selective checkpointing"));
  /* the explain line says why */
  g_autofree char *e = explain_one (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "zero_stage_or_fsdp,framework,global_batch,step_time_s\n1,GPT,H100-SXM-80GB,16,16,1024,"
    "16,16384,1024,1,1,FSDP,fms-fsdp,16,1.0\n");
  assert_explains (e, "grads bf16 (fms-fsdp's bfSixteen policy reduces in bf16)\n");
}

/* LoRA / adapter fine-tuning is skipped, saying so (MLPerf's llama2_70b_lora rows read
 * as full training and out of memory); MLA's kv_lora / q_lora and a negated mention are
 * no such run. */
static void
test_lora_skipped (void)
{
  static const struct { const char *model, *notes; gboolean skipped; } rows[] = {
    { "Llama 2 70B (LoRA fine-tuning)", "", TRUE },
    { "Llama 2 70B", "MLPerf llama2_70b_lora benchmark", TRUE },
    { "Llama 2 70B", "QLoRA, 4-bit base", TRUE },
    { "Llama 2 70B", "adapters only are trained (base weights frozen)", TRUE },
    { "GPT", "MLA kv_lora 512, no q_lora, kv_lora_rank 512", FALSE },
    { "GPT", "full fine-tuning, not LoRA", FALSE },
    { "GPT", "no LoRA", FALSE },
    /* names, another run, a negation after or inside the word, MLA's ranks, a frozen
     * encoder (the regression audit of 7 Dec skipped these) */
    { "GPT", "Dora experiment manager, FSDP", FALSE },
    { "GPT", "full pretraining; the LoRA fine-tuning numbers in Table 6 are a separate row",
      FALSE },
    { "GPT", "full-parameter SFT vs. LoRA baseline", FALSE },
    { "GPT", "LoRA-free full fine-tune of all weights", FALSE },
    { "GPT", "peft_scheme: none (LoRA recipe available but not used)", FALSE },
    { "GPT", "MLA with kv-LoRA rank 512 and q-LoRA rank 1536", FALSE },
    { "GPT", "frozen base CLIP vision encoder, the LLM fully trained", FALSE },
    { "GPT", "bf16 (QLoRA not applicable: full bf16 weights)", FALSE },
    { "GPT", "PEFT adapters only, base model frozen", TRUE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,notes,"
        "global_batch,step_time_s\n1,\"%s\",H100-SXM-80GB,8,16,1024,16,16384,1024,1,1,"
        "\"%s\",16,1.0\n", rows[i].model, rows[i].notes);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (c->ready == rows[i].skipped
          || (rows[i].skipped && strstr (c->skip_reason, "LoRA / adapter fine-tuning") == NULL))
        g_error ("'%s' / '%s': ready %d (%s)", rows[i].model, rows[i].notes, c->ready,
                 c->skip_reason ? c->skip_reason : "");
    }
}

/* FP8 weights (Megatron --fp8-param-gather) where a cell names the key, and the nemo
 * stack's default (on with delayed and current scaling: NeMo 2's and Megatron-Bridge's
 * FP8 recipes) where none does. A row of the small GPT on 16 H100s, tp 1, dp 16
 * (ZeRO-1: the distributed optimizer). -1: no cell said, the stack's. */
static void
test_fp8_param_gather_said (void)
{
  static const struct { const char *prec, *fw, *notes; int want; } rows[] = {
    { "fp8", "NeMo 25.04", "", -1 },
    { "fp8 (delayed scaling; fp8_params)", "NeMo 24.09", "", 1 },
    { "fp8", "NeMo 24.09", "tp_comm_overlap true, NVTE_FUSED_ATTN=0, fp8_params = FP8", 1 },
    { "fp8", "Megatron-LM", "--fp8-format hybrid --fp8-param-gather", 1 },
    { "fp8", "Megatron-Bridge", "mixed_precision.fp8_param_gather=False", 0 },
    { "fp8", "NeMo 2", "{'fp8_param_gather': false}", 0 },
    { "fp8", "Megatron-LM", "without --fp8-param-gather", 0 },
    { "fp8", "NeMo 2", "fp8_param: true", 1 },
    /* another key's tail, a clause about another run: not said */
    { "fp8", "NeMo 2", "mxfp8_params=True", -1 },
    { "fp8", "NeMo 2", "the baseline run had fp8_param_gather=False", -1 },
    /* a bf16 row: not read */
    { "bf16", "NeMo 2", "fp8_param_gather=True", -1 },
    /* a trial, another run's setting, a default said unused, a conditional said off (the
     * regression audit of 7 Dec read these on) */
    { "fp8", "NeMo 2", "fp8_param_gather=True was tried first but ran out of memory", -1 },
    { "fp8", "NeMo 2", "fp8_param_gather=True for the 8B run, False for this run", -1 },
    { "fp8", "NeMo 2", "fp8_param_gather (default in NeMo 2 recipes) was not used", 0 },
    { "fp8", "NeMo 2", "fp8_param_gather would save memory but is incompatible here, so off", 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "zero_stage_or_fsdp,precision,framework,notes,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,1,1,distributed optimizer,\"%s\","
        "\"%s\",\"%s\",16,1.0\n", rows[i].prec, rows[i].fw, rows[i].notes);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (!c->ready || c->plan.fp8_param_gather != rows[i].want)
        g_error ("'%s' / '%s' / '%s': fp8_param_gather %d (%s)", rows[i].prec, rows[i].fw,
                 rows[i].notes, c->plan.fp8_param_gather,
                 c->skip_reason ? c->skip_reason : "");
    }
  /* the explain line: the stack's default on nemo, the cell's word where one says */
  g_autofree char *e = explain_one (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "zero_stage_or_fsdp,precision,framework,global_batch,step_time_s\n1,GPT,B200,16,16,1024,"
    "16,16384,1024,1,1,distributed optimizer,fp8,NeMo 25.04,16,1.0\n");
  assert_explains (e, "(the stack's delayed recipe); linear weights held and gathered in fp8 "
                      "(the stack's fp8_param_gather)\n");
  g_autofree char *off = explain_one (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "zero_stage_or_fsdp,precision,framework,notes,global_batch,step_time_s\n1,GPT,B200,16,16,"
    "1024,16,16384,1024,1,1,distributed optimizer,fp8,NeMo 25.04,fp8_param_gather=False,16,"
    "1.0\n");
  assert_explains (off, "(the stack's delayed recipe); weights held and gathered in bf16 "
                        "(the notes say so)\n");
}

/* FSDP's float8 all-gather where a row's notes say so, and only with fp8 GEMMs;
 * TorchTitan's default (off) otherwise. A row of the small GPT on 16 H100s, tp 1, on
 * torchtitan (FSDP: zero3). */
static ResPublishedCase *
f8_row (const char *precision, const char *notes)
{
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "precision,framework,notes,global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,1,1,\"%s\",torchtitan,\"%s\",16,1.0\n",
    precision, notes);
  return case_of (text);
}

static void
test_fsdp_float8_all_gather (void)
{
  static const struct { const char *prec, *notes; gboolean want; } rows[] = {
    { "float8", "FSDP2 with float8 all-gather", TRUE },
    { "float8", "enable_fsdp_float8_all_gather = true", TRUE },
    { "float8", "Float8 = torchao Float8 on nn.Linear", FALSE },
    { "bf16", "FSDP2 with float8 all-gather", FALSE },
    /* the precision cell names it too, as torchao's benchmark table does
     * (docs/source/workflows/training.md: "tensorwise with float8 all-gather", "float8
     * tensorwise (f8 all-gather)"; the PyTorch blog's "float8 all_gather"): these read
     * as bf16 all-gathers, only the framework and notes cells and the spellings "float8"
     * and "fp8" being read */
    { "tensorwise with float8 all-gather", "", TRUE },
    { "float8 tensorwise (f8 all-gather)", "", TRUE },
    { "fp8 (fp8 all-gather)", "", TRUE },
    { "float8 (tensorwise scaling; float8 all_gather)", "", TRUE },
    { "float8", "FSDP2, f8 all-gather", TRUE },
    /* a 16-bit all-gather says it off, the precision cell before the notes ("rowwise
     * with bfloat16 all-gather": torchao's rowwise recipes cannot gather in float8); a
     * float8 all-gather said off is off (both read on) */
    { "rowwise with bfloat16 all-gather", "FSDP2 with float8 all-gather", FALSE },
    { "float8", "bf16 all-gather", FALSE },
    { "float8", "no float8 all-gather", FALSE },
    { "float8", "enable_fsdp_float8_all_gather=False", FALSE },
    /* the type after the collective, or a word between (read as not said: bf16) */
    { "float8 tensorwise, all-gather in float8", "", TRUE },
    { "float8 tensorwise (float8 weight all-gather)", "", TRUE },
    { "fp8 tensorwise, FP8 FSDP all-gather", "", TRUE },
    /* a rowwise recipe gathers bf16 whatever a cell says (torchao's Float8LinearConfig
     * asserts enable_fsdp_float8_all_gather only with a tensorwise-scaled weight), "fp8
     * rowwise; float8 all-gather is tensorwise-only" read as float8 */
    { "fp8 rowwise (bf16 all-gather; float8 all-gather only with tensorwise)", "", FALSE },
    { "fp8 rowwise; float8 all-gather is tensorwise-only", "", FALSE },
    { "fp8 rowwise", "FSDP2 with float8 all-gather", FALSE },
    /* a bf16 all-gather named beside the run's float8 one as a comparison: float8 (a
     * rule that read the precision cell's bf16 one as the run's read these off) */
    { "fp8 tensorwise with float8 all-gather (vs bf16 all-gather)", "", TRUE },
    { "fp8 tensorwise, float8 all-gather (2% faster than bf16 all-gather)", "", TRUE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = f8_row (rows[i].prec, rows[i].notes);
      if (!c->ready || c->plan.fsdp_float8_all_gather != rows[i].want)
        g_error ("'%s' / '%s': fsdp_float8_all_gather %d (%s)", rows[i].prec, rows[i].notes,
                 c->plan.fsdp_float8_all_gather, c->skip_reason ? c->skip_reason : "");
    }
  /* the explain line says which cell said it */
  g_autofree char *e = explain_one (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,precision,"
    "framework,global_batch,step_time_s\n1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,1,1,"
    "float8 tensorwise (f8 all-gather),torchtitan,16,1.0\n");
  assert_explains (e, "(tensorwise recipe); FSDP all-gather in float8 (the precision cell "
                      "says so)\n");
  /* ... or why a rowwise run's all-gather is bf16 where a cell named a float8 one */
  g_autofree char *rw = explain_one (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,precision,"
    "framework,global_batch,step_time_s\n1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,1,1,"
    "fp8 rowwise; float8 all-gather is tensorwise-only,torchtitan,16,1.0\n");
  assert_explains (rw, "(rowwise recipe); FSDP all-gather in bf16 (a rowwise recipe: torchao "
                       "gathers float8 only with tensorwise scaling)\n");
}

/* An FP8 run whose precision cell says its FSDP all-gather was not in float8 ran FP8
 * GEMMs with a bf16 all-gather: the fp8 / float8 there is the collective's type, not the
 * run's (fp8_negated). "fp8 tensorwise, no fp8 all-gather", "fp8 (float8 all-gather
 * disabled)" and the rest below were read as no FP8 at all, bf16 GEMMs (1.164 s
 * predicted for the audit's Llama 3 8B row against 1.181 s as FP8 with a bf16
 * all-gather). Where nothing else in the cell names FP8 the negation is the cell's. */
static void
test_fsdp_all_gather_said_off (void)
{
  static const struct { const char *prec; int recipe; } fp8[] = {
    { "fp8 tensorwise, no fp8 all-gather", FW_SCALING_CURRENT },
    { "fp8 (float8 all-gather disabled)", -1 },
    { "fp8 rowwise (no float8 all-gather: tensorwise only)", FW_SCALING_ROWWISE },
    { "float8 tensorwise w/o float8 all-gather", FW_SCALING_CURRENT },
  };
  for (guint i = 0; i < G_N_ELEMENTS (fp8); i++)
    {
      g_autoptr (ResPublishedCase) c = f8_row (fp8[i].prec, "");
      if (!c->ready || c->plan.compute_dtype != PLAN_PREC_FP8
          || c->plan.fp8_recipe != fp8[i].recipe || c->plan.fsdp_float8_all_gather
          || c->fsdp_ag_why == NULL)
        g_error ("precision '%s': %s, recipe %d, all-gather %d (%s)", fp8[i].prec,
                 c->plan.compute_dtype == PLAN_PREC_FP8 ? "fp8" : "not fp8",
                 c->plan.fp8_recipe, c->plan.fsdp_float8_all_gather,
                 c->skip_reason ? c->skip_reason : "");
    }
  g_autoptr (ResPublishedCase) c = f8_row ("bf16, no fp8 all-gather", "");
  g_assert_true (c->ready);
  g_assert_cmpint (c->plan.compute_dtype, ==, PLAN_PREC_BF16);
}

/* torchao's float8 recipes by name alone in the precision cell (Float8LinearRecipeName:
 * tensorwise, rowwise, rowwise_with_gw_hp), as torchao's benchmark table names its rows
 * ("rowwise with bfloat16 all-gather", "rowwise_with_gw_hp with bfloat16 all-gather"):
 * FP8 with that recipe; the 16-bit type there is FSDP's all-gather's. They read as bf16
 * (a bare "rowwise" or "tensorwise" was refused as not recognised). rowwise_with_gw_hp is
 * costed as rowwise (no variant with a bf16 weight-gradient GEMM), saying so. Only the
 * three names, as words, in a cell that names no other precision of the run; and only in
 * the precision cell. */
static void
test_torchao_recipe_names (void)
{
  static const struct { const char *prec; int recipe; gboolean ag; } fp8[] = {
    { "rowwise with bfloat16 all-gather", FW_SCALING_ROWWISE, FALSE },
    { "rowwise_with_gw_hp with bfloat16 all-gather", FW_SCALING_ROWWISE, FALSE },
    { "rowwise with bf16 all-gather", FW_SCALING_ROWWISE, FALSE },
    { "tensorwise", FW_SCALING_CURRENT, FALSE },
    { "rowwise", FW_SCALING_ROWWISE, FALSE },
    { "torchao rowwise_with_gw_hp", FW_SCALING_ROWWISE, FALSE },
    /* named with float8 as before */
    { "tensorwise with float8 all-gather", FW_SCALING_CURRENT, TRUE },
    /* the recipe named first, the other said of another row (read as rowwise, the
     * recipe list's order) */
    { "tensorwise; rowwise in row 7", FW_SCALING_CURRENT, FALSE },
    /* ... also beside an fp8 word (read as rowwise), and comms named otherwise than as
     * quantized leave the recipe (refused as not recognised) */
    { "fp8 tensorwise (rowwise in row 7)", FW_SCALING_CURRENT, FALSE },
    { "rowwise (compute-communication overlap on)", FW_SCALING_ROWWISE, FALSE },
    { "tensorwise, async TP comms overlap", FW_SCALING_CURRENT, FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (fp8); i++)
    {
      g_autoptr (ResPublishedCase) c = f8_row (fp8[i].prec, "");
      if (!c->ready || c->plan.compute_dtype != PLAN_PREC_FP8 || c->plan.fp8_recipe != fp8[i].recipe
          || c->plan.fsdp_float8_all_gather != fp8[i].ag)
        g_error ("precision '%s': %s, recipe %d, all-gather %d (%s)", fp8[i].prec,
                 c->plan.compute_dtype == PLAN_PREC_FP8 ? "fp8" : "not fp8", c->plan.fp8_recipe,
                 c->plan.fsdp_float8_all_gather, c->skip_reason ? c->skip_reason : "");
      g_assert_cmpint (c->fp8_recipe_why != NULL, ==,
                       strstr (fp8[i].prec, "rowwise_with_gw_hp") != NULL);
    }
  /* bf16 where the cell names the run's own 16-bit type, or the recipe said off, or the
   * name is no torchao recipe name ("row-wise" is refused as not recognised, as before) */
  static const struct { const char *prec, *notes; gboolean ready; } other[] = {
    { "bf16, rowwise", "", TRUE },
    { "none (bfloat16)", "", TRUE },
    { "bf16 (no rowwise)", "", TRUE },
    { "rowwise (fp8 off)", "", TRUE },
    { "bf16", "float8 rowwise was slower", TRUE },
    { "", "torchao tensorwise and rowwise recipes compared", TRUE },
    { "row-wise", "", FALSE },
    /* the same words about something else than float8 GEMMs: AMP (bf16) with a quantized
     * collective, and loss scaling, which names no number format and is refused as a bare
     * "tensorwise" was before (both read as FP8) */
    { "AMP rowwise quantized comms", "", TRUE },
    { "tensorwise loss scaling", "", FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (other); i++)
    {
      g_autoptr (ResPublishedCase) c = f8_row (other[i].prec, other[i].notes);
      if (c->ready != other[i].ready || (c->ready && c->plan.compute_dtype != PLAN_PREC_BF16))
        g_error ("precision '%s' / notes '%s': %s (%s)", other[i].prec, other[i].notes,
                 c->ready ? "read" : "skipped", c->skip_reason ? c->skip_reason : "");
    }
  /* the explain line says where the FP8 came from, and the recipe read as rowwise */
  g_autofree char *e = explain_one (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,precision,"
    "framework,global_batch,step_time_s\n1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,1,1,"
    "rowwise_with_gw_hp with bfloat16 all-gather,torchtitan,16,1.0\n");
  assert_explains (e, "-> fp8 GEMMs, attention bf16 (rowwise recipe: rowwise_with_gw_hp read "
                      "as rowwise: its weight-gradient GEMM in bf16 is not modelled); FP8: the "
                      "cell names a torchao float8 recipe (Float8LinearRecipeName); FSDP "
                      "all-gather in bf16 (the precision cell says so)\n");
}

/* Async TP on torchtitan runs compiled: TorchTitan refuses it on an eager model
 * (torchtitan/distributed/tensor_parallel.py maybe_enable_async_tp), so a published
 * async-TP run was compiled whether or not its cells say so. "torchtitan (FSDP2 + Tensor
 * Parallel, Async TP)" (docs/performance.md, Aug 2024) was refused "async TP needs a
 * compiled model". A row that says it was not compiled keeps the refusal. The small GPT
 * on 16 H100s, tp 2. */
static ResPublishedCase *
async_tp_row (const char *framework, const char *notes)
{
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "framework,notes,global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,\"%s\",\"%s\",16,1.0\n",
    framework, notes);
  return case_of (text);
}

static void
test_async_tp_compile (void)
{
  static const struct { const char *framework, *notes; gboolean implied; } on[] = {
    { "torchtitan (FSDP2 + Tensor Parallel, Async TP)", "", TRUE },
    { "torchtitan", "Optimizations: Float8 + Async TP", TRUE },
    { "torchtitan", "Tensor parallel mode: async TP (--parallelism.enable_async_tensor_parallel).",
      TRUE },
    /* named: compiled as before, nothing implied */
    { "torchtitan (FSDP2+TP, torch.compile, Float8, AsyncTP)", "", FALSE },
    /* its other spellings (names_async_tp), which were not read: no async TP, eager */
    { "torchtitan (FSDP2 + TP, Async Tensor Parallel)", "", TRUE },
    { "torchtitan (FSDP2 + TP, async-TP)", "", TRUE },
    { "torchtitan (FSDP2 + TP, enable_async_tensor_parallel=True)", "", TRUE },
    { "torchtitan (FSDP2 + TP, Asynchronous TP enabled)", "", TRUE },
    { "torchtitan (FSDP2 + TP, async_tp: true)", "", TRUE },
    /* a compound after the bracket is no verdict ("off-the-shelf", read as off) */
    { "torchtitan (FSDP2 + TP, async TP) off-the-shelf configs", "", TRUE },
    /* "not compiled" said of a baseline or of another row says nothing of this run
     * (names_compile_off, sentence_about_other_row): both were refused "async TP needs
     * a compiled model" */
    { "torchtitan (FSDP2 + TP, async TP)", "no torch.compile on the FSDP-only baseline row",
      TRUE },
    { "torchtitan (FSDP2 + TP, async TP)", "eager mode baseline is row 5", TRUE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (on); i++)
    {
      g_autoptr (ResPublishedCase) c = async_tp_row (on[i].framework, on[i].notes);
      if (!c->ready || !c->plan.async_tp || !c->plan.compile)
        g_error ("'%s' / '%s': async_tp %d compile %d (%s)", on[i].framework, on[i].notes,
                 c->plan.async_tp, c->plan.compile, c->skip_reason ? c->skip_reason : "");
      g_assert_cmpint (c->compile_why != NULL, ==, on[i].implied);
    }
  /* async TP said off: no async TP, and nothing compiled by it. Each was read as async
   * TP on ("async TP" anywhere in the cell) and compiled, 1.079 s predicted for the
   * audit's Llama 3 8B row against 1.217 s without */
  static const struct { const char *framework, *notes; } said_off[] = {
    { "torchtitan (FSDP2 + TP, async TP off)", "" },
    { "torchtitan (FSDP2 + TP, no async TP)", "" },
    { "torchtitan (FSDP2 + TP without async TP)", "" },
    { "torchtitan (FSDP2 + TP, async TP=False)", "" },
    { "torchtitan (FSDP2 + TP, AsyncTP: False)", "" },
    { "torchtitan (FSDP2 + TP, enable_async_tensor_parallel=False)", "" },
    { "torchtitan (FSDP2 + TP)", "async TP was not enabled" },
    /* the verdict after a bracket (read as on) */
    { "torchtitan (FSDP2 + TP)", "async TP (enable_async_tensor_parallel) was off" },
    /* a verdict that opens a bracket, its reason after a dash or a comma (read as on,
     * then refused: "async TP needs a compiled model") */
    { "torchtitan (FSDP2 + TP, async TP (off - not compiled))", "" },
    { "torchtitan (FSDP2 + TP)", "async TP (disabled, eager run)" },
    /* an async-TP mention in a sentence of the benchmark's purpose or of another run
     * (async_tp_sentence_aside): the torchtitan async-TP benchmark's vanilla rows read
     * async TP on, both modes predicted alike (audit of 8 Dec) */
    { "torchtitan (FSDP2 + TP)", "Tensor parallel mode: vanilla TP. 8B with TP=8 on one host "
      "is an unusual setting chosen to show async TP." },
    { "torchtitan (FSDP2 + TP)", "Vanilla TP; compared with async TP in the next row." },
    { "torchtitan (FSDP2 + TP)", "Same config as the async TP baseline." },
  };
  for (guint i = 0; i < G_N_ELEMENTS (said_off); i++)
    {
      g_autoptr (ResPublishedCase) c = async_tp_row (said_off[i].framework, said_off[i].notes);
      if (!c->ready || c->plan.async_tp || c->plan.compile || c->compile_why != NULL)
        g_error ("'%s' / '%s': async_tp %d compile %d (%s)", said_off[i].framework,
                 said_off[i].notes, c->plan.async_tp, c->plan.compile,
                 c->skip_reason ? c->skip_reason : "");
    }
  /* said not compiled: refused as before */
  static const struct { const char *framework, *notes; } off[] = {
    { "torchtitan (Async TP, no torch.compile)", "" },
    { "torchtitan (Async TP, eager)", "" },
    { "torchtitan (Async TP)", "torch.compile disabled" },
    { "torchtitan (Async TP)", "compile=false" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (off); i++)
    {
      g_autoptr (ResPublishedCase) c = async_tp_row (off[i].framework, off[i].notes);
      if (c->ready || strstr (c->skip_reason, "async TP needs a compiled model") == NULL)
        g_error ("'%s' / '%s': %s, expected refused", off[i].framework, off[i].notes,
                 c->ready ? "read" : c->skip_reason);
    }
  g_autofree char *e = explain_one (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,framework,"
    "global_batch,step_time_s\n1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,"
    "\"torchtitan (FSDP2 + Tensor Parallel, Async TP)\",16,1.0\n");
  assert_explains (e, "; compiled: not named, implied by async TP (TorchTitan refuses async "
                      "TP without torch.compile)\n");
}

/* CP's K/V exchange where a row does not name one: the stack's (torchtitan: its
 * context_parallel_rotate_method default, one all-gather; Megatron: the p2p ring); a note
 * naming the all-gather wins everywhere. 16 GPUs, cp 2, tp 1 -> dp 8. */
static ResPublishedCase *
cp_row (const char *framework, const char *notes)
{
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,cp,"
    "framework,notes,global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,1,1,2,\"%s\",\"%s\",8,1.0\n",
    framework, notes);
  return case_of (text);
}

static void
test_cp_comm_default (void)
{
  static const struct { const char *fw, *notes; PlanCpComm want; } rows[] = {
    { "torchtitan", "CP rotate method not stated", PLAN_CP_ALLGATHER },
    { "Megatron-Core", "", PLAN_CP_P2P },
    { "Megatron-Core", "K/V all-gathered", PLAN_CP_ALLGATHER },
    /* Megatron-Core's --cp-comm-type in the notes (read as the ring before) */
    { "Megatron-Core", "--cp-comm-type a2a", PLAN_CP_A2A },
    { "Megatron-Core", "cp_comm_type=allgather", PLAN_CP_ALLGATHER },
    { "torchtitan", "cp_comm_type: p2p", PLAN_CP_P2P },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = cp_row (rows[i].fw, rows[i].notes);
      if (!c->ready || c->plan.cp_comm != rows[i].want)
        g_error ("'%s' / '%s': cp_comm %d, expected %d (%s)", rows[i].fw, rows[i].notes,
                 c->plan.cp_comm, rows[i].want, c->skip_reason ? c->skip_reason : "");
    }
  /* the exchange named in the cp cell itself (read as the stack's before; "CP=2, a2a"
   * was not even a size) */
  static const struct { const char *cell; PlanCpComm want; } cells[] = {
    { "2 (a2a)", PLAN_CP_A2A }, { "CP=2 (Ulysses)", PLAN_CP_A2A },
    { "2 (all-gather)", PLAN_CP_ALLGATHER }, { "CP=2, allgather", PLAN_CP_ALLGATHER },
    { "2 (ring)", PLAN_CP_P2P },
    /* the degree after the exchange's name (it was read as 1, the ring of the stack) */
    { "ring attention (2)", PLAN_CP_P2P }, { "all-gather (2)", PLAN_CP_ALLGATHER },
    { "a2a, 2", PLAN_CP_A2A },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cells); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,cp,"
        "framework,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,1,1,\"%s\",Megatron-Core,8,1.0\n",
        cells[i].cell);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (!c->ready || c->plan.cp != 2 || c->plan.cp_comm != cells[i].want)
        g_error ("cp '%s': cp %d comm %d, expected 2 / %d (%s)", cells[i].cell, c->plan.cp,
                 c->plan.cp_comm, cells[i].want, c->skip_reason ? c->skip_reason : "");
    }
  /* a cp cell with no degree read is skipped, not read as 1 */
  static const char *const unread[] = { "ring attention", "ring (2 or 4)" };
  for (guint i = 0; i < G_N_ELEMENTS (unread); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,cp,"
        "framework,global_batch,step_time_s\n"
        "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,1,1,\"%s\",Megatron-Core,8,1.0\n",
        unread[i]);
      g_autoptr (ResPublishedCase) c = case_of (text);
      g_assert_false (c->ready);
      g_assert_nonnull (strstr (c->skip_reason, "no context-parallel degree read"));
    }
  /* hierarchical a2a+p2p is not modelled: skipped, saying so */
  g_autoptr (ResPublishedCase) h = cp_row ("Megatron-Core", "--cp-comm-type a2a+p2p");
  g_assert_false (h->ready);
  g_assert_nonnull (strstr (h->skip_reason, "hierarchical"));
}

/* The cross entropy: Transformer Engine's where the framework cell names Megatron-Bridge
 * (its performance scripts set cross_entropy_fusion_impl "te" for every recipe), the
 * native one elsewhere, NeMo's older launcher and Megatron-Core included (cp_row's
 * 16-GPU CP2 plan; the framework cell is all that differs). */
static void
test_cross_entropy_impl (void)
{
  static const struct { const char *fw; gboolean want; } rows[] = {
    { "NeMo Megatron-Bridge 25.11 (Megatron-Core)", TRUE },
    { "megatron-bridge", TRUE },
    { "NeMo 24.07", FALSE },
    { "Megatron-Core", FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = cp_row (rows[i].fw, "");
      if (!c->ready || c->plan.te_cross_entropy != rows[i].want)
        g_error ("'%s': te_cross_entropy %d, expected %d (%s)", rows[i].fw,
                 c->plan.te_cross_entropy, rows[i].want, c->skip_reason ? c->skip_reason : "");
    }
}

/* A bare "FP8" is read by the framework: from a Megatron-Bridge table it is per-tensor
 * current scaling (its scripts/performance/argument_parser.py offers --compute_dtype bf16,
 * fp8_cs, fp8_mx, fp8_sc, nvfp4 and no delayed recipe; the 26.02 archive's "FP8" rows of
 * Llama 3 70B are the *_FP8_CS presets); from NeMo 24.07 (NeMo 2 on Megatron-Core) or any
 * other stack it stays the stack's (-1: nemo's delayed recipe). A recipe the row names
 * wins over the framework rule (MXFP8, FP8-SC, delayed). */
static void
test_megatron_bridge_fp8 (void)
{
  static const struct { const char *gpu, *fw, *text; int recipe; } rows[] = {
    { "H100-SXM-80GB", "NeMo Megatron-Bridge 26.02 (Megatron-Core)", "FP8", FW_SCALING_CURRENT },
    { "GB200 NVL72", "megatron-bridge", "fp8 (the table says FP8; scaling recipe not named)",
      FW_SCALING_CURRENT },
    { "H100-SXM-80GB", "NeMo 24.07 (Megatron-Core)", "FP8", -1 },
    { "H100-SXM-80GB", "Megatron-Core", "fp8", -1 },
    { "GB300 NVL72", "NeMo Megatron-Bridge 26.02 (Megatron-Core)", "MXFP8", FW_SCALING_BLOCK },
    { "H100-SXM-80GB", "NeMo Megatron-Bridge 25.11", "FP8-SC", FW_SCALING_BLOCKWISE },
    { "H100-SXM-80GB", "NeMo Megatron-Bridge 25.11", "FP8 (delayed scaling)",
      FW_SCALING_DELAYED },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = row (rows[i].gpu, 8, 1, "", rows[i].fw, rows[i].text);
      if (!c->ready)
        g_error ("%s / %s: %s", rows[i].fw, rows[i].text, c->skip_reason);
      g_assert_cmpint (c->plan.compute_dtype, ==, PLAN_PREC_FP8);
      if (c->plan.fp8_recipe != rows[i].recipe)
        g_error ("%s / %s: recipe %d, expected %d", rows[i].fw, rows[i].text,
                 c->plan.fp8_recipe, rows[i].recipe);
    }
  /* bf16 from Megatron-Bridge stays bf16: the rule only picks a recipe for FP8 rows */
  g_autoptr (ResPublishedCase) bf = row ("H100-SXM-80GB", 8, 1, "", "megatron-bridge", "BF16");
  g_assert_true (bf->ready);
  g_assert_cmpint (bf->plan.compute_dtype, ==, PLAN_PREC_BF16);
}

/* TP-comm overlap of a Megatron-Bridge NVFP4 row: off (the performance scripts' Llama 3
 * configs set tp_comm_overlap False for precision "nvfp4"); its MXFP8 and BF16 siblings
 * keep the nemo stack's default (on with TP 2 and sequence parallel), and so does an
 * NVFP4 row of another NeMo release, which the rule does not name. Eight GB200 GPUs, TP 2. */
static ResPublishedCase *
tp2_row (const char *framework, const char *precision)
{
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "framework,precision,global_batch,step_time_s\n"
    "1,GPT,GB200 NVL72,8,16,1024,16,16384,1024,2,1,\"%s\",\"%s\",32,1.0\n",
    framework, precision);
  return case_of (text);
}

static void
test_megatron_bridge_nvfp4_tp_overlap (void)
{
  static const struct { const char *fw, *text; gboolean want; } rows[] = {
    { "NeMo Megatron-Bridge 26.02 (Megatron-Core)", "nvfp4 (NVFP4: FP4 E2M1 with 1x16 block "
      "scaling, Transformer Engine)", FALSE },
    { "megatron-bridge", "NVFP4", FALSE },
    { "NeMo Megatron-Bridge 26.02 (Megatron-Core)", "fp8 (MXFP8: FP8-MX, 1x32 block scaling)",
      TRUE },
    { "NeMo Megatron-Bridge 26.02 (Megatron-Core)", "bf16", TRUE },
    { "NeMo 24.07 (Megatron-Core)", "NVFP4", TRUE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = tp2_row (rows[i].fw, rows[i].text);
      if (!c->ready)
        g_error ("%s / %s: %s", rows[i].fw, rows[i].text, c->skip_reason);
      g_assert_true (c->plan.sequence_parallel);
      if (c->plan.tp_comm_overlap != rows[i].want)
        g_error ("%s / %s: tp_comm_overlap %d, expected %d", rows[i].fw, rows[i].text,
                 c->plan.tp_comm_overlap, rows[i].want);
    }
}

/* Megatron-FSDP without gradient-accumulation fusion: a Megatron-Bridge row sharded by its
 * FSDP column (ZeRO-3) copies each layer's gradients into the reduce-scatter bucket (plan.h
 * zero3_grad_copy_in; the performance configs set gradient_accumulation_fusion False with
 * use_megatron_fsdp). The same row with the distributed optimizer (ZeRO-1) keeps the fused
 * accumulation, and so does a ZeRO-3 row of another stack (torchtitan: FSDP2, its own
 * copies, zero3_copy_in_out). Eight GB200 GPUs, TP 1. */
static void
test_megatron_fsdp_grad_copy (void)
{
  static const struct { const char *fw, *shard; int want; } rows[] = {
    { "NeMo Megatron-Bridge 25.11 (Megatron-Core)", "Megatron-FSDP (FSDP 1: use_megatron_fsdp, "
      "sharding strategy optim_grads_params, the ZeRO-3-like default)", 1 },
    { "NeMo Megatron-Bridge 25.11 (Megatron-Core)", "distributed optimizer (FSDP 0)", 0 },
    { "torchtitan", "FSDP (fully sharded)", 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "framework,zero_stage_or_fsdp,precision,global_batch,step_time_s\n"
        "1,GPT,GB200 NVL72,8,16,1024,16,16384,1024,1,1,\"%s\",\"%s\",bf16,32,1.0\n",
        rows[i].fw, rows[i].shard);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (!c->ready)
        g_error ("%s / %s: %s", rows[i].fw, rows[i].shard, c->skip_reason);
      g_assert_cmpint (c->plan.sharding, ==, i == 1 ? PLAN_SHARD_ZERO1 : PLAN_SHARD_ZERO3);
      if (MAX (c->plan.zero3_grad_copy_in, 0) != rows[i].want)
        g_error ("%s / %s: zero3_grad_copy_in %d, expected %d", rows[i].fw, rows[i].shard,
                 c->plan.zero3_grad_copy_in, rows[i].want);
    }
}

/* A row whose notes quote a config that turns TP-comm overlap off ("tp_comm_overlap=False",
 * Megatron-Bridge's Qwen3-235B-A22B H100 performance config) runs its TP collectives apart:
 * the same Megatron-Bridge FP8 row with TP 2 and sequence parallel is on by the nemo stack's
 * default (test above), and off with that note. The hyphenated "--tp-comm-overlap" of other
 * notes still turns it on (the test row there has no such note; here one does). */
static void
test_tp_overlap_off_note (void)
{
  static const struct { const char *notes; gboolean want; } rows[] = {
    { "", TRUE },
    { "[config: qwen3_llm_pretrain.py builds CommOverlapConfig(tp_comm_overlap=False)]", FALSE },
    { "ran with --tp-comm-overlap", TRUE },
    /* the key in any case, with '=' or ':' (the dgxc recipes' environment, as Together AI's
     * re-runs quote it; NeMo 1's ub_ key); not another key that ends in it, nor on */
    { "launched with TP_COMM_OVERLAP=False (TP-communication overlap off)", FALSE },
    { "tp_comm_overlap: false", FALSE },
    { "model.ub_tp_comm_overlap: False", FALSE },
    { "sub_tp_comm_overlap=False", TRUE },
    { "TP_COMM_OVERLAP=True", TRUE },
    /* a quoted config's key and value */
    { "Config: {\"\"tp_comm_overlap\"\": false}", FALSE },
    /* ... but not another run's setting, nor a value that only starts like one (the
     * regression audit of 7 Dec: these read off with the rule's first version) */
    { "The baseline run had tp_comm_overlap: false; this row enables it.", TRUE },
    { "tp_comm_overlap=false for the 1-node ablation only", TRUE },
    { "defer tp_comm_overlap: no-op", TRUE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "framework,precision,global_batch,step_time_s,notes\n"
        "1,GPT,H100-SXM-80GB,8,16,1024,16,16384,1024,2,1,"
        "\"NeMo Megatron-Bridge 26.02 (Megatron-Core)\",fp8,32,1.0,\"%s\"\n",
        rows[i].notes);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (!c->ready)
        g_error ("%s: %s", rows[i].notes, c->skip_reason);
      g_assert_true (c->plan.sequence_parallel);
      if (c->plan.tp_comm_overlap != rows[i].want)
        g_error ("'%s': tp_comm_overlap %d, expected %d", rows[i].notes,
                 c->plan.tp_comm_overlap, rows[i].want);
    }
  /* ... and in the framework cell, where Together AI's re-runs of the dgxc recipes write it */
  g_autoptr (ResPublishedCase) fw = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "framework,precision,global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,8,16,1024,16,16384,1024,2,1,"
    "\"NeMo 25.07.01 (Megatron-Core), TP_COMM_OVERLAP=False\",fp8,32,1.0\n");
  g_assert_true (fw->ready);
  g_assert_true (fw->plan.sequence_parallel);
  g_assert_false (fw->plan.tp_comm_overlap);
}

/* NeMo AutoModel is NeMo's PyTorch backend (FSDP2 over Hugging Face model code with TE
 * kernels; its performance summary: "NeMo Pytorch backend - i.e. NeMo Automodel"): the
 * nemo-automodel stack, not NeMo on Megatron-Core, which a plain "NeMo" names. Its MoE
 * parallelizer defaults reshard_after_forward to False, so an FSDP cell that names no mode
 * reads as zero2 (parameters gathered once for forward and backward); a cell that says
 * "reshard_after_forward true" (a config that sets it) reads as zero3, on any stack, and
 * so does full sharding named as the mode ("full shard", "FULL_SHARD", "ZeRO-3": FSDP2's
 * reshard_after_forward=True), which read as zero2 by the stack's default. */
static void
test_automodel_stack (void)
{
  g_autoptr (ResPublishedCase) am = row ("H100-SXM-80GB", 8, 1, "FSDP2 (FSDP 8)",
                                         "NeMo AutoModel (PyTorch FSDP2 + Transformer Engine "
                                         "+ DeepEP)", "bf16");
  g_assert_true (am->ready);
  g_assert_cmpstr (am->stack->name, ==, "nemo-automodel");
  g_assert_cmpint (am->plan.sharding, ==, PLAN_SHARD_ZERO2);
  static const struct { const char *text; PlanSharding want; } modes[] = {
    { "FSDP2 (full shard; FSDP 8)", PLAN_SHARD_ZERO3 },
    { "FSDP2 (full shard)", PLAN_SHARD_ZERO3 },
    { "FULL_SHARD", PLAN_SHARD_ZERO3 },
    { "FSDP FULL_SHARD (ZeRO-3)", PLAN_SHARD_ZERO3 },
    { "ZeRO-3", PLAN_SHARD_ZERO3 },
    { "ZeRO stage 3", PLAN_SHARD_ZERO3 },
    { "full-shard FSDP2", PLAN_SHARD_ZERO3 },
    /* FSDP by its name only: the stack's default */
    { "FSDP2", PLAN_SHARD_ZERO2 },
    { "fully_shard", PLAN_SHARD_ZERO2 },
    { "FSDP2 (fully_shard)", PLAN_SHARD_ZERO2 },
    /* the stated argument wins over the named mode */
    { "FSDP2 (full shard, reshard_after_forward=False)", PLAN_SHARD_ZERO2 },
    /* ... and so does no reshard after the forward said in words (these read zero3, the
     * full shard named) */
    { "FSDP2 (full shard of optimizer and grads; params not resharded after forward)",
      PLAN_SHARD_ZERO2 },
    { "FSDP2 full-shard, no reshard after forward", PLAN_SHARD_ZERO2 },
    { "FULL_SHARD, without resharding after the forward", PLAN_SHARD_ZERO2 },
    /* SHARD_GRAD_OP is zero2 whatever the stack */
    { "SHARD_GRAD_OP", PLAN_SHARD_ZERO2 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autoptr (ResPublishedCase) c = row ("H100-SXM-80GB", 8, 1, modes[i].text,
                                            "NeMo AutoModel", "bf16");
      if (!c->ready || c->plan.sharding != modes[i].want)
        g_error ("'%s' on NeMo AutoModel: sharding %d, expected %d (%s)", modes[i].text,
                 c->plan.sharding, modes[i].want, c->skip_reason ? c->skip_reason : "");
    }
  g_autoptr (ResPublishedCase) am3 = row ("H100-SXM-80GB", 8, 1,
                                          "FSDP2 (full shard, reshard_after_forward true)",
                                          "NeMo AutoModel", "bf16");
  g_assert_true (am3->ready);
  g_assert_cmpint (am3->plan.sharding, ==, PLAN_SHARD_ZERO3);
  /* torchtitan keeps parameters under PP (zero2) unless the cell says it reshards */
  g_autoptr (ResPublishedCase) tt = row ("H100-SXM-80GB", 8, 2, "FSDP2", "torchtitan", "bf16");
  g_autoptr (ResPublishedCase) tt3 = row ("H100-SXM-80GB", 8, 2,
                                          "FSDP2, reshard_after_forward=True", "torchtitan",
                                          "bf16");
  g_assert_true (tt->ready && tt3->ready);
  g_assert_cmpint (tt->plan.sharding, ==, PLAN_SHARD_ZERO2);
  g_assert_cmpint (tt3->plan.sharding, ==, PLAN_SHARD_ZERO3);
  g_autoptr (ResPublishedCase) nemo = row ("H100-SXM-80GB", 8, 1, "", "NeMo 24.07", "bf16");
  g_assert_true (nemo->ready);
  g_assert_cmpstr (nemo->stack->name, ==, "nemo");
}

/* Pipeline schedules a step from the local batch a row's notes state (plan.h
 * pp_schedules). Rows 833 and 834 of data/published-runs.csv (NeMo AutoModel, DeepSeek-V3,
 * PP 4, micro-batches of 1): 833 GBS 8192 on dp 256 is 32 sequences a data-parallel rank,
 * "LBS 8 (local batch per pipeline step) x GA 4": 32 / 8 = 4 schedules; 834 GBS 512 on dp
 * 64 is 8, one local batch of 8: 1. Row 835 (Kimi K2, GBS 512, dp 32: 16, LBS 8): 2.
 * No such note, or a local batch that does not divide the share: 1. */
static void
test_pp_schedules (void)
{
  static const char *n833 = "LBS 8 (local batch per pipeline step) x GA 4 = GBS/dp = 32 "
                            "sequences per data-parallel rank in micro-batches of 1.";
  static const char *n834 = "LBS 8 (local batch per pipeline step) x GA 1 = GBS/dp = 8 "
                            "sequences per data-parallel rank in micro-batches of 1.";
  static const char *n835 = "LBS 8 (local batch per pipeline step) x GA 2 = GBS/dp = 16 "
                            "sequences per data-parallel rank in micro-batches of 1.";
  g_assert_cmpint (res_pub_pp_schedules (n833, 8192, 256, 1), ==, 4);
  g_assert_cmpint (res_pub_pp_schedules (n834, 512, 64, 1), ==, 1);
  g_assert_cmpint (res_pub_pp_schedules (n835, 512, 32, 1), ==, 2);
  g_assert_cmpint (res_pub_pp_schedules ("LBS 8 x GA 4", 8192, 256, 1), ==, 1);
  g_assert_cmpint (res_pub_pp_schedules (NULL, 8192, 256, 1), ==, 1);
  g_assert_cmpint (res_pub_pp_schedules (n833, 8192, 256, 3), ==, 1);   /* 8 % 3 */
  g_assert_cmpint (res_pub_pp_schedules (n833, 8200, 256, 1), ==, 1);   /* 8200 % 256 */
  /* through the mapping: the 16-layer GPT on 16 GPUs, PP 4, dp 4; GBS 128 is 32 a rank,
   * 4 local batches of 8 (833's shape); GBS 32 is one (834's); PP 1 runs no schedule */
  static const struct { int pp, global, want; } rows[] = {
    { 4, 128, 4 }, { 4, 32, 1 }, { 1, 128, 1 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "micro_batch,global_batch,framework,notes,step_time_s\n"
        "1,GPT,H100-SXM-80GB,%d,16,1024,16,16384,1024,1,%d,1,%d,NeMo AutoModel,\"%s\",1.0\n",
        4 * rows[i].pp, rows[i].pp, rows[i].global, n833);
      g_autoptr (ResPublishedCase) c = case_of (text);
      if (!c->ready || plan_pp_schedules (&c->plan) != rows[i].want)
        g_error ("pp %d global %d: pp_schedules %d, expected %d (%s)", rows[i].pp,
                 rows[i].global, plan_pp_schedules (&c->plan), rows[i].want,
                 c->skip_reason ? c->skip_reason : "");
    }
}

/* NVTE_FUSED_ATTN=0 in a row's notes turns Transformer Engine's cuDNN fused attention
 * off, so TE runs its FlashAttention backend: the row's stack (nemo, cuDNN class) runs the
 * FlashAttention-2 class; the same row without the note keeps cuDNN, and a stack already
 * on FA2 (torchtitan) is left as it is. The dgxc-benchmarking NeMo rows 925-956 quote it. */
static void
test_nvte_fused_attn_off (void)
{
  static const struct { const char *fw, *notes; FwAttnKernel want; } rows[] = {
    { "NeMo 24.09 (Megatron-Core)", "ub_tp_comm_overlap true, NVTE_FUSED_ATTN=0, fp8_params",
      FW_ATTN_FLASH2 },
    { "NeMo 24.09 (Megatron-Core)", "ub_tp_comm_overlap true", FW_ATTN_CUDNN },
    { "torchtitan", "NVTE_FUSED_ATTN=0", FW_ATTN_FLASH2 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "framework,precision,global_batch,step_time_s,notes\n"
        "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,1,1,\"%s\",bf16,64,1.0,\"%s\"\n",
        rows[i].fw, rows[i].notes);
      g_autoptr (ResPublishedCase) c = case_of (text);
      g_assert_true (c->ready);
      g_assert_cmpint (c->stack->attention, ==, rows[i].want);
    }
}

/* An option the row's stack does not run is skipped with the stack's own refusal, as
 * predict and search refuse it (plan_check_stack): validate predicted and scored such
 * rows (HSDP on megatron-core read as "hsdp, shard group 8"; ZeRO-3 on Megatron-LM of
 * 2021), a plan no other command would take (audit of 6 Dec). */
/* A framework the cell names only to say the run did not use it selects no stack (these
 * were megatron-core and nemo): the stack the rest of the cell names, else the default,
 * said not recognised. 8 H100s, pp 1. */
static void
test_framework_said_off (void)
{
  static const struct { const char *framework, *stack; gboolean recognised; } rows[] = {
    { "PyTorch FSDP (we did not use Megatron)", "pytorch-fsdp", TRUE },
    { "PyTorch (custom, no Megatron)", "pytorch-fsdp", TRUE },
    { "in-house (not NeMo)", FW_STACK_DEFAULT, FALSE },
    /* named and not said off: its stack */
    { "DeepSpeed without Megatron", "deepspeed", TRUE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = row ("H100-SXM-80GB", 8, 1, "", rows[i].framework,
                                            "bf16");
      if (!c->ready || g_strcmp0 (c->stack->name, rows[i].stack) != 0)
        g_error ("framework '%s': stack %s, expected %s (%s)", rows[i].framework,
                 c->stack != NULL ? c->stack->name : "(none)", rows[i].stack,
                 c->skip_reason ? c->skip_reason : "");
      g_assert_cmpint (c->stack_why == NULL, ==, rows[i].recognised);
    }
}

static void
test_stack_refuses (void)
{
  static const struct { const char *sharding, *framework, *want; } rows[] = {
    { "HSDP", "Megatron-Core", "the megatron-core stack does not offer HSDP" },
    { "ZeRO-3", "Megatron-LM (2021)", "--sharding zero3: the megatron-lm-2021 stack does not "
                                      "offer it" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (ResPublishedCase) c = row ("H100-SXM-80GB", 16, 1, rows[i].sharding,
                                            rows[i].framework, "bf16");
      g_assert_false (c->ready);
      g_assert_nonnull (c->skip_reason);
      if (strstr (c->skip_reason, rows[i].want) == NULL)
        g_error ("%s on %s: %s", rows[i].sharding, rows[i].framework, c->skip_reason);
    }
  /* the same rows on a stack that runs them are predicted (deepspeed: ZeRO-3) */
  g_autoptr (ResPublishedCase) ok = row ("H100-SXM-80GB", 16, 1, "ZeRO-3", "DeepSpeed", "bf16");
  g_assert_true (ok->ready);
}

/* An MFU cell is read against the row's own GPU's peak, also under a --cluster the user
 * gave: the measurement is the row's. An H100 row's 41% (palm) read under selene (A100,
 * 312 TFLOP/s BF16 against the H100's 989) measured 989 / 312 = 3.17 times too long a
 * step (0.455 -> 1.444 s, audit of 6 Dec). */
static void
test_mfu_own_peak (void)
{
  const char *text =
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,framework,"
    "global_batch,mfu_pct,flops_convention\n"
    "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,Megatron-Core,64,41,PaLM\n";
  g_autoptr (ResCsv) csv = res_csv_parse (text, -1, "inline", NULL);
  g_autoptr (ResPublishedCase) own = res_published_case_new (csv, 0);
  g_autoptr (GError) error = NULL;
  g_autoptr (TopoCluster) selene = topo_cluster_lookup ("selene", &error);
  g_assert_no_error (error);
  g_autoptr (ResPublishedCase) on = res_published_case_new_on (csv, 0, selene);
  g_assert_true (own->ready);
  g_assert_true (on->ready);
  g_assert_cmpfloat (own->measured_step_s, >, 0);
  g_assert_cmpfloat (on->measured_step_s, ==, own->measured_step_s);
}

/* A figure of hardware FLOPs utilisation: an hfu_pct cell where it is the row's only
 * figure (it was skipped "no measured step time"), an mfu_pct or tflops_per_gpu cell
 * labelled HFU (read as model FLOPs). The small GPT on 16 H100s (tp 2, dp 8), 64 x 1,024
 * = 65,536 tokens a step, no flops_convention (HFU needs none). */
static ResPublishedCase *
hfu_row (const char *recompute, const char *mfu, const char *tflops, const char *hfu)
{
  g_autofree char *text = g_strdup_printf (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,global_batch,"
    "recompute,mfu_pct,tflops_per_gpu,hfu_pct\n"
    "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,64,%s,\"%s\",\"%s\",\"%s\"\n",
    recompute, mfu, tflops, hfu);
  return case_of (text);
}

static void
test_hfu_measured (void)
{
  /* hfu_pct 40 without recompute. By hand (models/model-flops.c): a layer's forward per
   * token is 2 x (4 h^2 + 2 h ffn) = 2 x (4,194,304 + 8,388,608) = 25,165,824 of GEMMs and
   * 2 s a (d_qk + d_v) / 2 = 2,097,152 of causal attention, 27,262,976 x 16 layers =
   * 436,207,616, plus the logits 2 h V = 33,554,432: 469,762,048 forward, x 3 =
   * 1,409,286,144 hardware FLOPs a token. Per GPU 1,409,286,144 x 65,536 / 16 = 5.7724e12
   * a step; at 40% of 989.4 TFLOP/s: 5.7724e12 / 395.76e12 = 0.014586 s. The step
   * program's own count (what the predicted HFU is taken from, and this reading) puts a
   * little more on attention: within 2% */
  g_autoptr (ResPublishedCase) none = hfu_row ("none", "", "", "40");
  if (!none->ready)
    g_error ("hfu_pct 40: %s", none->skip_reason);
  g_assert_cmpfloat (fabs (none->measured_step_s / 0.014586 - 1), <, 0.02);
  g_assert_nonnull (strstr (none->measured_source, "(HFU: recomputed forward counted)"));
  /* the reading is the prediction's own count: hardware FLOPs per GPU a step = HFU x peak
   * x step for both, so measured step x 0.40 = predicted step x predicted HFU */
  g_assert_true (res_published_case_predict (none));
  g_assert_cmpfloat (fabs (none->measured_step_s * 0.40
                           / (none->predicted_step_s * none->predicted_hfu) - 1), <, 1e-9);
  /* full recompute adds the layers' forward again: (3 x 469,762,048 + 436,207,616) /
   * (3 x 469,762,048) = 1,845,493,760 / 1,409,286,144 = 1.3095 times the step (the
   * program's count: within 1%) */
  g_autoptr (ResPublishedCase) full = hfu_row ("full", "", "", "40");
  g_assert_true (full->ready);
  g_assert_cmpfloat (fabs (full->measured_step_s / none->measured_step_s / 1.3095 - 1), <,
                     0.01);
  /* an mfu_pct labelled HFU is that figure (it was read as model FLOPs: 0.01564 s with a
   * PaLM count); a TFLOP/s cell labelled HFU is hardware TFLOP/s: 40% of 989.4 =
   * 395.76 TFLOP/s gives the same step */
  static const struct { const char *mfu, *tflops; } same[] = {
    { "40 (HFU)", "" }, { "40% HFU", "" }, { "", "395.76 (HFU, incl. recompute)" },
    { "", "395.76 TFLOP/s (HFU)" },
    /* past a per-GPU unit, a dtype, a qualifier or the punctuation that sets the label
     * off (these were read as model FLOPs) */
    { "", "395.76 TFLOP/s/GPU (HFU)" }, { "", "395.76 TFLOPs per GPU (HFU)" },
    { "", "395.76 TFLOP/s/GPU HFU" }, { "", "395.76 (bf16, HFU)" }, { "40, HFU", "" },
    { "40 [HFU]", "" }, { "40 - HFU", "" }, { "40 (reported as HFU)", "" },
    { "40 (Megatron-style HFU)", "" }, { "40 (measured as HFU)", "" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (same); i++)
    {
      g_autoptr (ResPublishedCase) c = hfu_row ("full", same[i].mfu, same[i].tflops, "");
      if (!c->ready || fabs (c->measured_step_s / full->measured_step_s - 1) > 1e-9
          || strstr (c->measured_source, "HFU: recomputed forward counted") == NULL)
        g_error ("mfu '%s' tflops '%s': %g s from %s, expected %g s (%s)", same[i].mfu,
                 same[i].tflops, c->measured_step_s,
                 c->measured_source ? c->measured_source : "-", full->measured_step_s,
                 c->skip_reason ? c->skip_reason : "");
      g_assert_true (isnan (c->published_mfu_pct));
    }
  /* "not HFU" is no label: the MFU as before (no convention here: no figure) */
  g_autoptr (ResPublishedCase) not_hfu = hfu_row ("full", "40 (not HFU)", "", "");
  g_assert_false (not_hfu->ready);
  /* HFU labels the leading figure only right after it: one with its own number, one
   * negated, or MFU / model FLOPs named first leave the figure model FLOPs, read as the
   * bare figure with PaLM's count (these were read as HFU wherever the cell named it) */
  static const struct { const char *column, *cell, *bare; } model[] = {
    { "mfu_pct", "47 (HFU 62)", "47" },
    { "mfu_pct", "47 (MFU; HFU not reported)", "47" },
    { "tflops_per_gpu", "465.9 (model FLOPs; HFU 620)", "465.9" },
    { "tflops_per_gpu", "465.9 (non-HFU, model FLOPs)", "465.9" },
    /* an HFU the cell does not give ("not reported", "n/a", "would be"), past the
     * punctuation and units the label may follow: no label of the leading figure (read as
     * HFU: regression audit of 7 Dec) */
    { "mfu_pct", "47, HFU not reported", "47" },
    { "mfu_pct", "47 (HFU n/a)", "47" },
    { "mfu_pct", "47 - HFU would be higher", "47" },
    { "tflops_per_gpu", "465.9 TFLOP/s/GPU (HFU not given)", "465.9" },
    { "tflops_per_gpu", "465.9 (bf16, HFU unknown)", "465.9" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (model); i++)
    {
      g_autoptr (ResPublishedCase) bare = NULL, c = NULL;
      for (guint k = 0; k < 2; k++)
        {
          g_autofree char *text = g_strdup_printf (
            "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
            "global_batch,recompute,flops_convention,%s\n"
            "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,64,full,PaLM,\"%s\"\n",
            model[i].column, k == 0 ? model[i].bare : model[i].cell);
          (k == 0 ? &bare : &c)[0] = case_of (text);
        }
      g_assert_true (bare->ready);
      if (!c->ready || fabs (c->measured_step_s / bare->measured_step_s - 1) > 1e-12
          || strstr (c->measured_source, "HFU") != NULL)
        g_error ("%s '%s': %g s from %s, expected %g s (%s)", model[i].column, model[i].cell,
                 c->measured_step_s, c->measured_source ? c->measured_source : "-",
                 bare->measured_step_s, c->skip_reason ? c->skip_reason : "");
    }
  /* "hardware FLOPs" right after the figure labels it as "HFU" does */
  g_autoptr (ResPublishedCase) hw = hfu_row ("full", "40 (hardware FLOPs utilisation)", "", "");
  if (!hw->ready || fabs (hw->measured_step_s / full->measured_step_s - 1) > 1e-9)
    g_error ("mfu '40 (hardware FLOPs utilisation)': %g s, expected %g s (%s)",
             hw->measured_step_s, full->measured_step_s, hw->skip_reason ? hw->skip_reason : "");
  /* a fraction for a percentage, as for mfu_pct: from 0.05, 100 times it, the step of
   * "40" (it was refused "below 1%: a fraction"), also labelled HFU in mfu_pct; below,
   * refused with the hint */
  static const struct { const char *mfu, *hfu; } fractions[] = {
    { "", "0.4" }, { "", "0.40" }, { "0.4 (HFU)", "" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (fractions); i++)
    {
      g_autoptr (ResPublishedCase) frac = hfu_row ("none", fractions[i].mfu, "",
                                                   fractions[i].hfu);
      if (!frac->ready || fabs (frac->measured_step_s / none->measured_step_s - 1) > 1e-12
          || strstr (frac->measured_source, "written as a fraction: 40%") == NULL)
        g_error ("mfu '%s' hfu '%s': %g s from %s, expected %g s (%s)", fractions[i].mfu,
                 fractions[i].hfu, frac->measured_step_s,
                 frac->measured_source ? frac->measured_source : "-", none->measured_step_s,
                 frac->skip_reason ? frac->skip_reason : "");
    }
  g_autoptr (ResPublishedCase) tiny = hfu_row ("none", "", "", "0.04");
  g_assert_false (tiny->ready);
  g_assert_cmpstr (tiny->skip_reason, ==, "hfu_pct '0.04' is below 1%: a fraction, not a "
                   "percentage? (hint: write 4.0 for 4.0%)");
}

/* A node's rate in a per-GPU column is over the GPUs of a node of the row's cluster (it
 * was read as a GPU's: "96,000 per node" 8 times too fast on 8-GPU servers). The small
 * GPT, tp 2, 64 x 1,024 = 65,536 tokens a step. */
static void
test_rate_per_node (void)
{
  static const struct { const char *gpu; int n; const char *column, *cell; double want; } rows[] = {
    /* 16 H100s, 8 a server: 96,000 / 8 = 12,000 tokens/s a GPU, 65,536 / (12,000 x 16) =
     * 0.34133 s; 12,000 / 8 = 1,500: 65,536 / (1,500 x 16) = 2.7307 s */
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "96,000 per node", 65536.0 / (12000 * 16) },
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "12000 (per node)", 65536.0 / (1500 * 16) },
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "96K tokens/s/node", 65536.0 / (12000 * 16) },
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "96000 per server", 65536.0 / (12000 * 16) },
    /* GPUs named before the node: a GPU's rate, its node described */
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "12,000 (8 GPUs per node)",
      65536.0 / (12000 * 16) },
    /* GH200 in nodes of four: 48,000 / 4 = 12,000 */
    { "GH200 (Grace Hopper)", 16, "tokens_per_s_per_gpu", "48,000 per node",
      65536.0 / (12000 * 16) },
    /* 4 GPUs of an 8-GPU server: the node's rate is the run's, 48,000 / 4 = 12,000 a GPU:
     * 65,536 / (12,000 x 4) = 1.3653 s */
    { "H100-SXM-80GB", 4, "tokens_per_s_per_gpu", "48,000 per node", 65536.0 / (12000 * 4) },
    /* the node only where it follows the leading figure, past unit words */
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "96000 tokens per second per node",
      65536.0 / (12000 * 16) },
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "96000/node", 65536.0 / (12000 * 16) },
    /* past a comma or "aggregate", or written "per-node", "per 8-GPU node", "per DGX node"
     * (the first two were read as a GPU's 96,000, the last three never read as a node's) */
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "96,000 tokens/s, per node",
      65536.0 / (12000 * 16) },
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "96,000 tokens/s (aggregate per node)",
      65536.0 / (12000 * 16) },
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "96,000 per-node", 65536.0 / (12000 * 16) },
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "96,000 tokens/s per 8-GPU node",
      65536.0 / (12000 * 16) },
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "96,000 tokens/s per DGX node",
      65536.0 / (12000 * 16) },
    /* a bracket or later clause that gives its own figure per node, or a leading figure
     * said to be a device's or an H100's: a GPU's rate (these were divided by 8: 2,000
     * tokens/s a GPU, 65,536 / (2,000 x 16) = 2.048 s, read as 16.384 s) */
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "2000 (per device; 8 devices per node)",
      65536.0 / (2000 * 16) },
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "2000 per H100 (16K per node)",
      65536.0 / (2000 * 16) },
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "2,000 tokens/s per GPU (16K per node)",
      65536.0 / (2000 * 16) },
    /* a "per node" that labels a figure or a noun of its own (divided by 8: regression
     * audit of 7 Dec) */
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "2,000 (per node: 16k)",
      65536.0 / (2000 * 16) },
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "2,000, per node 16,000",
      65536.0 / (2000 * 16) },
    { "H100-SXM-80GB", 16, "tokens_per_s_per_gpu", "2,000 (per-node batch 64)",
      65536.0 / (2000 * 16) },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *t = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
        "global_batch,%s\n1,GPT,\"%s\",%d,16,1024,16,16384,1024,2,1,64,\"%s\"\n",
        rows[i].column, rows[i].gpu, rows[i].n, rows[i].cell);
      g_autoptr (ResPublishedCase) c = case_of (t);
      if (!c->ready || fabs (c->measured_step_s / rows[i].want - 1) > 1e-12)
        g_error ("%s '%s' on %d %s: %g s, expected %g (%s)", rows[i].column, rows[i].cell,
                 rows[i].n, rows[i].gpu, c->measured_step_s, rows[i].want,
                 c->skip_reason ? c->skip_reason : "");
    }
  /* TFLOP/s too: 3,200 a node of 8 is 400 a GPU, the step of the cell "400" (it was
   * refused as no rate unit) */
  g_autoptr (ResPublishedCase) gpu = approx_row ("tflops_per_gpu", "", "400");
  g_assert_true (gpu->ready);
  /* (approx_row writes the cell unquoted: the one with a comma quotes itself) */
  static const char *const tflops_node[] = { "3200 per node", "3200 per-node",
                                             "3200 per 8-GPU node",
                                             "\"3200 TFLOP/s, per node\"",
                                             "3200 (aggregate per node)" };
  for (guint i = 0; i < G_N_ELEMENTS (tflops_node); i++)
    {
      g_autoptr (ResPublishedCase) node = approx_row ("tflops_per_gpu", "", tflops_node[i]);
      if (!node->ready || fabs (node->measured_step_s / gpu->measured_step_s - 1) > 1e-12)
        g_error ("tflops_per_gpu '%s': %g s, expected %g (%s)", tflops_node[i],
                 node->measured_step_s, gpu->measured_step_s,
                 node->skip_reason ? node->skip_reason : "");
    }
  /* a TFLOP/s figure whose bracket gives the node's own in PFLOP/s is a GPU's: the step
   * of "465.9" (it was divided by 8, a step 8 times too long) */
  g_autoptr (ResPublishedCase) g466 = approx_row ("tflops_per_gpu", "", "465.9");
  g_autoptr (ResPublishedCase) aside = approx_row ("tflops_per_gpu", "",
                                                   "465.9 (3.7 PFLOP/s per node)");
  g_assert_true (g466->ready);
  if (!aside->ready || fabs (aside->measured_step_s / g466->measured_step_s - 1) > 1e-12)
    g_error ("tflops_per_gpu '465.9 (3.7 PFLOP/s per node)': %g s, expected %g (%s)",
             aside->measured_step_s, g466->measured_step_s,
             aside->skip_reason ? aside->skip_reason : "");
  /* the explain line says so */
  g_autofree char *e = explain_one (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "global_batch,tokens_per_s_per_gpu\n"
    "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,64,\"96,000 per node\"\n");
  assert_explains (e, "from tokens_per_s_per_gpu (per node: / 8 GPUs a node)");
}

/* A measured step faster than the row's GPU can go is refused: a TFLOP/s cell of 5,000 on
 * an H100 (dense peak 1,979 TFLOP/s in FP8, its highest) was scored at +951%; 400 is a
 * measurement (40% of the BF16 peak). */
static void
test_measured_above_peak (void)
{
  static const struct { const char *tflops; gboolean ready; } rows[] = {
    { "5000", FALSE }, { "400", TRUE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,framework,"
        "global_batch,tflops_per_gpu,flops_convention\n"
        "1,GPT,H100-SXM-80GB,16,16,1024,16,16384,1024,2,1,Megatron-Core,64,%s,PaLM\n",
        rows[i].tflops);
      g_autoptr (ResPublishedCase) c = case_of (text);
      g_assert_cmpint (c->ready, ==, rows[i].ready);
      if (!rows[i].ready)
        g_assert_nonnull (strstr (c->skip_reason, "above the H100-SXM5-80GB's highest peak "
                                                  "(1979 TFLOP/s in any precision)"));
    }
}

/* A bare "HSDP" on a row of dp 1 (8 GPUs at tp 8): no data-parallel group at all; the
 * skip's hint named 'HSDP, shard 1', the group it had just refused (audit of 7 Dec) */
static void
test_hsdp_dp1 (void)
{
  g_autoptr (ResPublishedCase) c = case_of (
    "row_id,model,gpu_type,n_gpus,n_layers,hidden,n_heads,vocab,seq_len,tp,pp,"
    "zero_stage_or_fsdp,framework,global_batch,step_time_s\n"
    "1,GPT,H100-SXM-80GB,8,16,1024,16,16384,1024,8,1,HSDP,torchtitan,8,10\n");
  g_assert_false (c->ready);
  g_assert_nonnull (strstr (c->skip_reason, "with dp 1 there is no data-parallel group"));
  g_assert_null (strstr (c->skip_reason, "shard 1'"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/results/mapping/gpu-types", test_gpu_types);
  g_test_add_func ("/results/mapping/sharding", test_sharding);
  g_test_add_func ("/results/mapping/sharding-explain", test_sharding_explain);
  g_test_add_func ("/results/mapping/sharding-long-cell", test_sharding_long_cell);
  g_test_add_func ("/results/mapping/sharding-from-framework", test_sharding_from_framework);
  g_test_add_func ("/results/mapping/recompute", test_recompute);
  g_test_add_func ("/results/mapping/pytorch-fsdp-compile", test_pytorch_fsdp_compile);
  g_test_add_func ("/results/mapping/unstated-degrees", test_unstated_degrees);
  g_test_add_func ("/results/mapping/tp-left-one", test_tp_left_one);
  g_test_add_func ("/results/mapping/batch-from-stack-accumulation",
                   test_batch_from_stack_accumulation);
  g_test_add_func ("/results/mapping/recompute-notes-negated", test_recompute_notes_negated);
  g_test_add_func ("/results/mapping/interleaved-unstated", test_interleaved_unstated);
  g_test_add_func ("/results/mapping/zero-bubble-named", test_zero_bubble_named);
  g_test_add_func ("/results/mapping/layers-per-chunk-word", test_layers_per_chunk_word);
  g_test_add_func ("/results/mapping/batch-accumulation-stated",
                   test_batch_accumulation_stated);
  g_test_add_func ("/results/mapping/layers-per-chunk-slots", test_layers_per_chunk_slots);
  g_test_add_func ("/results/mapping/precision", test_precision);
  g_test_add_func ("/results/mapping/precision-from-notes", test_precision_from_notes);
  g_test_add_func ("/results/mapping/sp-from-notes", test_sp_from_notes);
  g_test_add_func ("/results/mapping/sp-from-notes-unstated", test_sp_from_notes_unstated);
  g_test_add_func ("/results/mapping/megatron-lm-2021", test_megatron_lm_2021);
  g_test_add_func ("/results/mapping/ulysses-in-sp-cell", test_ulysses_in_sp_cell);
  g_test_add_func ("/results/mapping/schedule-stack-default", test_schedule_stack_default);
  g_test_add_func ("/results/mapping/megatron-lm-device", test_megatron_lm_device);
  g_test_add_func ("/results/mapping/megatron-lm-distopt", test_megatron_lm_distopt);
  g_test_add_func ("/results/mapping/numbers-as-written", test_numbers_as_written);
  g_test_add_func ("/results/mapping/units-and-ranges", test_units_and_ranges);
  g_test_add_func ("/results/mapping/spaced-thousands", test_spaced_thousands);
  g_test_add_func ("/results/mapping/batch-per-gpu", test_batch_per_gpu);
  g_test_add_func ("/results/mapping/batch-per-gpu-product", test_batch_per_gpu_product);
  g_test_add_func ("/results/mapping/network-bandwidth", test_network_bandwidth);
  g_test_add_func ("/results/mapping/recipe-as-run", test_recipe_as_run);
  g_test_add_func ("/results/mapping/mi250x-gcds", test_mi250x_gcds);
  g_test_add_func ("/results/mapping/stack-defaults", test_stack_defaults);
  g_test_add_func ("/results/mapping/pp-microbatches", test_pp_microbatches);
  g_test_add_func ("/results/mapping/micro-batch-labels", test_micro_batch_labels);
  g_test_add_func ("/results/mapping/batch-token-product", test_batch_token_product);
  g_test_add_func ("/results/mapping/fsdp-float8-all-gather", test_fsdp_float8_all_gather);
  g_test_add_func ("/results/mapping/fp8-param-gather", test_fp8_param_gather_said);
  g_test_add_func ("/results/mapping/lora-skipped", test_lora_skipped);
  g_test_add_func ("/results/mapping/grad-reduce-dtype", test_grad_reduce_dtype);
  g_test_add_func ("/results/mapping/fsdp-all-gather-said-off", test_fsdp_all_gather_said_off);
  g_test_add_func ("/results/mapping/torchao-recipe-names", test_torchao_recipe_names);
  g_test_add_func ("/results/mapping/mcore-causal-convention", test_mcore_causal_convention);
  g_test_add_func ("/results/mapping/async-tp-compile", test_async_tp_compile);
  g_test_add_func ("/results/mapping/cp-comm-default", test_cp_comm_default);
  g_test_add_func ("/results/mapping/cross-entropy-impl", test_cross_entropy_impl);
  g_test_add_func ("/results/mapping/megatron-bridge-fp8", test_megatron_bridge_fp8);
  g_test_add_func ("/results/mapping/megatron-bridge-nvfp4-tp-overlap",
                   test_megatron_bridge_nvfp4_tp_overlap);
  g_test_add_func ("/results/mapping/tp-overlap-off-note", test_tp_overlap_off_note);
  g_test_add_func ("/results/mapping/megatron-fsdp-grad-copy", test_megatron_fsdp_grad_copy);
  g_test_add_func ("/results/mapping/automodel-stack", test_automodel_stack);
  g_test_add_func ("/results/mapping/pp-schedules", test_pp_schedules);
  g_test_add_func ("/results/mapping/ranking", test_ranking);
  g_test_add_func ("/results/mapping/explain", test_explain);
  g_test_add_func ("/results/mapping/unstated", test_unstated);
  g_test_add_func ("/results/mapping/nvte-fused-attn-off", test_nvte_fused_attn_off);
  g_test_add_func ("/results/mapping/stack-refuses", test_stack_refuses);
  g_test_add_func ("/results/mapping/framework-said-off", test_framework_said_off);
  g_test_add_func ("/results/mapping/mfu-own-peak", test_mfu_own_peak);
  g_test_add_func ("/results/mapping/hfu-measured", test_hfu_measured);
  g_test_add_func ("/results/mapping/rate-per-node", test_rate_per_node);
  g_test_add_func ("/results/mapping/measured-above-peak", test_measured_above_peak);
  g_test_add_func ("/results/mapping/hsdp-dp1", test_hsdp_dp1);
  g_test_add_func ("/results/mapping/explain-unresolved", test_explain_unresolved);
  g_test_add_func ("/results/mapping/explain-power-limited", test_explain_power_limited);
  g_test_add_func ("/results/mapping/hybrid-mamba-model", test_hybrid_mamba_model);
  g_test_add_func ("/results/mapping/vocab-thousands", test_vocab_thousands);
  g_test_add_func ("/results/mapping/gated-mlp-named", test_gated_mlp_named);
  return g_test_run ();
}
