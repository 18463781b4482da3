/* topology/cluster.h - a GPU cluster: one device type and a hierarchy of levels.
 *
 * Contract:
 *  - Bandwidths in bytes/s per direction per device, latencies in seconds, capacities in
 *    bytes, peaks in FLOP/s. Every number read from JSON may carry a "source" string.
 *  - Level 0 is the innermost domain (a server: GPUs on NVLink); level i groups `count`
 *    units of level i-1 (level 0 groups `count` devices). The cluster has
 *    prod(count) devices. Ranks are numbered so that consecutive ranks share the
 *    innermost level (rank r is device r).
 *  - A TopoCluster is immutable once loaded and shared through ref/unref. Fields are
 *    public for reading.
 *  - Loading never prints; failures come back as TOPO_ERROR GErrors naming the file and
 *    field. Presets are compiled in as GResources (/tandem/topology/NAME.json). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define TOPO_ERROR (topo_error_quark ())
/* Levels a cluster file may nest: the presets have at most 5 (tray, rack, su, pod,
 * cluster); the cost of a prediction grows with levels x GPUs */
#define TOPO_MAX_LEVELS 16
GQuark topo_error_quark (void);

typedef enum {
  TOPO_ERROR_NOT_FOUND,
  TOPO_ERROR_PARSE,
  TOPO_ERROR_MISSING_FIELD,
  TOPO_ERROR_INVALID_FIELD,
} TopoError;

typedef enum {
  TOPO_DTYPE_FP32,   /* non-tensor (vector) FP32 */
  TOPO_DTYPE_TF32,
  TOPO_DTYPE_FP16,
  TOPO_DTYPE_BF16,
  TOPO_DTYPE_FP8,
  TOPO_DTYPE_FP4,    /* NVFP4 (Blackwell): E2M1 values, an E4M3 scale per 16 */
  TOPO_DTYPE_N,
} TopoDtype;

const char *topo_dtype_name  (TopoDtype dtype);                 /* "fp32", "bf16", ... */
gboolean    topo_dtype_parse (const char *name, TopoDtype *out);
guint       topo_dtype_bytes (TopoDtype dtype);                 /* 4, 4, 2, 2, 1 */

typedef struct {
  char   *name;                       /* "H100-SXM5-80GB" */
  char   *part;                       /* the GPU part the device is ("H100"), where its
                                         name does not say: the part by which the cost
                                         model's fitted knobs and the accuracy figures
                                         know it (topo_device_part); NULL = the name */
  char   *vendor;                     /* "nvidia", "amd", "google", "aws" */
  double  peak_flops[TOPO_DTYPE_N];   /* dense FLOP/s per device; 0 = not supported */
  guint64 hbm_bytes;                  /* capacity per device */
  double  hbm_Bps;                    /* HBM bandwidth per device */
  guint   sms;                        /* SMs / CUs / cores; 0 = unknown */
  guint   fp32_cores_per_sm;          /* 0 = unknown */
  guint   tensor_cores_per_sm;        /* 0 = unknown */
  double  clock_hz;                   /* boost clock used for the peak; 0 = unknown */
  double  exp_per_clk_per_sm;         /* SFU exponentials (MUFU.EX2) per clock per SM, as
                                         attention's softmax issues them; 0 = unknown */
  /* Efficiency defaults of the cost model (sim/); each has a source in the JSON.
   * 0 means "not given in the JSON": the cost model then uses its own documented default. */
  double  gemm_efficiency;            /* best achieved GEMM fraction of peak (MAMF) */
  double  power_cap_clock_ratio;      /* SM clock sustained at the part's power cap over
                                         the clock at the TDP that the peaks and
                                         gemm_efficiency describe; scales the cost
                                         model's tensor, vector and SFU rates (not HBM,
                                         not the peak MFU is reported against);
                                         0 = not given (1: no cap below TDP) */
  double  sustained_matmul_ratio;     /* the matmul rate a part holds under sustained full
                                         load (its clock settled at the power limit) over
                                         its boost-burst MAMF, both measured with one
                                         protocol (MSMF / MAMF); 0 = not measured. The
                                         cost model scales an architecture's borrowed
                                         fits by this over the fitted parts' ratio. */
  double  mem_efficiency;             /* achieved fraction of hbm_Bps */
  double  perf_sigma;                 /* standard deviation of one part's kernel speed
                                         across parts of this SKU, over the median part's;
                                         0 = not given (no variation modelled) */
  double  launch_overhead_s;          /* per kernel */
  gboolean has_nvls;                  /* in-switch all-reduce (NVLink SHARP) at level 0 */
  double  nvls_busbw_Bps;             /* measured NVLS all-reduce bus bandwidth, 0 = none */
  gboolean fp8_any_layout;            /* FP8 GEMMs in every operand layout (TN, NT, NN): a
                                         per-tensor FP8 tensor needs no transposed copy */
  gboolean mxfp8;                     /* MXFP8 block-scaled GEMMs (1x32 E8M0 scales) */
  double  mxfp8_gemm_ratio;           /* measured MXFP8 GEMM rate / per-tensor FP8 GEMM
                                         rate; 0 = not given (the same rate) */
  double  host_link_Bps;              /* link to the host CPU's memory, per direction
                                         (PCIe x16, NVLink-C2C); 0 = not given (sim/cost.c
                                         picks the device family's default) */
  guint   host_link_devices;          /* devices sharing that link (>= 1) */
  GHashTable *sources;                /* field name -> source string (may be empty) */
} TopoDevice;

/* The text by which the cost model (sim/cost.c) and the published-run accuracy figures
 * (results/) recognise the device's part: its "part" where the JSON gives one, else its
 * name. */
const char *topo_device_part (const TopoDevice *dev);

/* The part names a device's "part" may hold (NULL-terminated; matched case-insensitively
 * as a substring, as the cost model matches names): "GH200", "GB300", ..., "H100", "A100". */
const char *const *topo_known_parts (void);

typedef struct {
  char   *name;             /* "server", "rack", "pod", "cluster" */
  guint64 count;            /* units of the level below (devices for level 0) */
  double  bw_Bps;           /* per direction, per device, for traffic that leaves the
                               level below and stays inside this one */
  double  busbw_Bps;        /* achievable collective bus bandwidth per device
                               (nccl-tests); 0 = derive from bw_Bps x efficiency */
  double  a2a_busbw_Bps;     /* per device, what NCCL's all-to-all reaches across this
                               level where it is below busbw: a NIC of several planes
                               (ConnectX-8's 800 Gb/s as two 400 Gb/s planes) gives an
                               all-to-all one plane, as NCCL's all-to-all does not
                               aggregate NICs; 0 = as the other collectives */
  double  latency_s;        /* per algorithm step (alpha); 0 = not known */
  double  oversubscription; /* >= 1; 7 means 1:7 (bandwidth / 7 when all cross) */
  char   *source;
} TopoLevel;

/* ---- hardware profile: measured tables (topology/profile.c) -------------------------
 *
 * The optional "profile" object of a cluster JSON (written by `tandem calibrate`, or
 * filled from nccl-tests output): what this hardware achieved, which the cost model
 * (sim/cost*.c) uses in place of its default curves. Loaded strictly like the rest of
 * the file; the format is in topology/presets/README.md. Units here are SI. */
struct _JsonNode;                     /* json-glib's JsonNode (json-glib.h not needed here) */

typedef struct {
  guint64   m, n, k;                  /* C[m,n] = A[m,k] B[k,n] */
  TopoDtype dtype;                    /* of A and B */
  double    flops_per_s;              /* achieved, 2 m n k / time, per device (rank) */
} TopoProfileGemm;

typedef struct {
  char    coll[16];                   /* nccl-tests test name without _perf: "all_reduce",
                                         "all_gather", "reduce_scatter", "alltoall",
                                         "sendrecv" (plan/collective.h names) */
  guint   ranks;                      /* group size */
  double  bytes;                      /* nccl-tests size column (plan/collective.h) */
  double  time_s;                     /* per operation */
  double  algbw_Bps, busbw_Bps;       /* as printed by nccl-tests (1e9 B/s = 1 GB/s) */
} TopoProfileColl;

/* The attention core (softmax (q k^T) v) as the backend runs it. FLOPs are counted as the
 * step program counts them (plan/program.c): forward 4 b heads s_q s_kv head_dim, halved
 * when causal; backward 2.5 x the forward (FlashAttention-2's five matmuls for two). */
typedef struct {
  guint64   b, heads, kv_heads, s_q, s_kv, head_dim;
  gboolean  causal;
  TopoDtype dtype;                    /* of Q, K, V */
  double    fwd_flops_per_s;          /* achieved forward FLOP/s per device (rank) */
  double    bwd_flops_per_s;          /* achieved backward FLOP/s */
} TopoProfileAttn;

/* Memory-bound kernels by kind (the "kernels" object; topology/presets/README.md). The
 * names are those of the step program's ops: a kind and its backward "_grad". */
typedef enum {
  TOPO_KERNEL_NORM,           /* RMSNorm / LayerNorm over the hidden size */
  TOPO_KERNEL_NORM_GRAD,
  TOPO_KERNEL_ROTARY,         /* rotary embedding of Q and K */
  TOPO_KERNEL_ROTARY_GRAD,
  TOPO_KERNEL_SWIGLU,         /* the MLP activation (mlp_act) */
  TOPO_KERNEL_SWIGLU_GRAD,
  TOPO_KERNEL_RESIDUAL,       /* residual add / copy, and other element-wise ops */
  TOPO_KERNEL_RESIDUAL_GRAD,
  TOPO_KERNEL_EMBEDDING,      /* token lookup */
  TOPO_KERNEL_EMBEDDING_GRAD,
  TOPO_KERNEL_LOSS,           /* softmax cross-entropy over the vocabulary */
  TOPO_KERNEL_LOSS_GRAD,
  TOPO_KERNEL_ADAMW,          /* the optimizer step, per parameter */
  TOPO_KERNEL_N,
} TopoKernel;

/* One measured size of a memory-bound kind. `elements` and the bytes behind Bps are
 * counted as the cost model counts them (sim/cost-compute.c, topology/presets/README.md):
 * bytes = elements x accesses(kind) x 4 for fp32, AdamW 30 bytes per parameter. */
typedef struct {
  guint64 elements;
  double  Bps;                        /* achieved bytes/s per device (rank) */
} TopoProfileKernel;

const char *topo_kernel_name  (TopoKernel kernel);   /* "norm", "norm_grad", ... */
gboolean    topo_kernel_parse (const char *name, TopoKernel *out);
/* The bytes a memory-bound op of `elements` moves as the cost model counts them (the unit
 * of TopoProfileKernel.Bps): elements x accesses per element of the kind x 4 bytes (fp32,
 * tf32) or 2 (other dtypes: activations stay 16-bit); AdamW 30 bytes per parameter.
 * The accesses are listed in topology/profile.c and topology/presets/README.md. */
double      topo_kernel_bytes (TopoKernel kernel, double elements, TopoDtype dtype);

/* How the ranks of a CPU profile shared the host's cores while it was measured, and what
 * an all-reduce in flight took from a GEMM loop on every rank (the "contention" object):
 * the inputs of the CPU contention model (sim/cost-cpu.c). All 0 = not measured. */
typedef struct {
  guint   cores;                      /* CPUs the ranks could run on (sched_getaffinity) */
  guint   blas_threads;               /* compute (BLAS) threads per rank */
  guint   progress_threads;           /* MPI progress threads per rank (exec/backend-cpu) */
  guint64 gemm_m;                     /* the GEMM timed: gemm_m^3, FP32 */
  double  gemm_alone_s;               /* per GEMM, every rank computing, nothing in flight */
  double  gemm_coll_s;                /* the same GEMMs while all-reduces of coll_bytes were
                                         kept in flight on every rank (progress thread) */
  double  coll_bytes;                 /* all-reduce size (nccl-tests size column) */
  double  coll_s;                     /* wall time per all-reduce during that loop */
  double  compute_share;              /* the share of a core the calibrating threads got
                                         while runnable over the timing windows the
                                         profile's compute rates come from (each row's
                                         median window; on CPU / (on CPU + waiting),
                                         schedstat); 0 = not measured. tandem calibrate
                                         restates each row's rate at this share from the
                                         row's own window's (exec/calibrate-profile.c) */
} TopoProfileContention;

typedef struct {
  char   *source;                     /* "tandem calibrate on HOST, DATE", ... */
  char   *backend;                    /* "cpu", "cuda", "nccl-tests"; NULL = not given */
  char   *host;                       /* NULL = not given */
  char   *date;                       /* NULL = not given */
  guint   ranks;                      /* ranks that measured; 0 = not given */
  GArray *gemm;                       /* TopoProfileGemm */
  double  copy_Bps, triad_Bps;        /* memory bandwidth per rank; 0 = not measured */
  GArray *colls;                      /* TopoProfileColl */
  /* Added after the fields above (other code reads those): */
  GArray *attention;                  /* TopoProfileAttn */
  GArray *kernels[TOPO_KERNEL_N];     /* TopoProfileKernel per kind, ascending elements */
  /* Added after the fields above: CPU contention (the "contention" object; measured by
   * exec/calibrate-contention.c, read by sim/cost-cpu.c for CPU profiles only). */
  TopoProfileContention contention;
} TopoProfile;

TopoProfile *topo_profile_new      (void);                           /* empty tables */
void         topo_profile_free     (TopoProfile *profile);           /* NULL-safe */
TopoProfile *topo_profile_copy     (const TopoProfile *profile);
/* Appends a GEMM row. */
void         topo_profile_add_gemm (TopoProfile *profile, guint64 m, guint64 n, guint64 k,
                                    TopoDtype dtype, double flops_per_s);
/* Adds a collective row; one with the same (coll, ranks, bytes) is replaced. FALSE (and
 * nothing added) when `coll` is not a known name or a number is out of range. */
gboolean     topo_profile_add_coll (TopoProfile *profile, const char *coll, guint ranks,
                                    double bytes, double time_s, double algbw_Bps,
                                    double busbw_Bps);
/* Appends an attention row. */
void         topo_profile_add_attention (TopoProfile *profile, const TopoProfileAttn *row);
/* Adds a kernel row, keeping the kind's rows in ascending `elements`; a row of the same
 * size is replaced. FALSE (nothing added) when elements is 0 or Bps is not > 0. */
gboolean     topo_profile_add_kernel (TopoProfile *profile, TopoKernel kernel,
                                      guint64 elements, double Bps);
/* TRUE for the five names of TopoProfileColl.coll. */
gboolean     topo_profile_coll_name_valid (const char *coll);
/* Reads a "profile" JSON member (for cluster-load.c); errors name `file` and the field
 * path ("profile.gemm[2]") as the rest of the loader does. */
gboolean     topo_profile_load     (struct _JsonNode *node, const char *file,
                                    TopoProfile **out, GError **error);
/* The "profile" object as a new JsonNode (json_node_unref), which topo_profile_load
 * reads back to the same tables. */
struct _JsonNode *topo_profile_to_json_node (const TopoProfile *profile);
/* A cluster JSON text with its "profile" member set to `profile` (replacing one that is
 * there); NULL with TOPO_ERROR_PARSE when cluster_json is not a JSON object. */
char        *topo_cluster_json_set_profile (const char *cluster_json,
                                            const TopoProfile *profile, GError **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TopoProfile, topo_profile_free)

typedef struct {
  int        ref_count;
  char      *name;
  char      *description;
  char      *source;          /* path or "preset:NAME" */
  char      *json;            /* the raw file text */
  TopoDevice device;
  guint      nics_per_device; /* scale-out NICs per device */
  double     nic_Bps;         /* per NIC, per direction */
  TopoLevel *levels;          /* n_levels, innermost first */
  guint      n_levels;
  guint64    n_devices;       /* prod(levels[i].count) */
  /* Added by the loader (after the fields above, which other code already reads): */
  GHashTable *sources;        /* top-level field name ("nic_Gbps", ...) -> source string */
  TopoProfile *profile;       /* measured tables ("profile"); NULL when the file has none */
} TopoCluster;

TopoCluster *topo_cluster_lookup        (const char *name_or_path, GError **error);
TopoCluster *topo_cluster_load_file     (const char *path, GError **error);
TopoCluster *topo_cluster_load_preset   (const char *name, GError **error);
TopoCluster *topo_cluster_new_from_data (const char *json_text, gssize length,
                                         const char *source, GError **error);
/* A copy whose outermost level repeats ceil(n_devices / cluster's devices) times (the same
 * scale-out fabric, more of its units; the description says so); NULL with
 * TOPO_ERROR_INVALID_FIELD for a one-level cluster, which has no scale-out level. */
TopoCluster *topo_cluster_scale_out     (const TopoCluster *cluster, guint64 n_devices,
                                         GError **error);
TopoCluster *topo_cluster_ref           (TopoCluster *cluster);
void         topo_cluster_unref         (TopoCluster *cluster);        /* NULL-safe */
char       **topo_preset_names          (void);                        /* g_strfreev */

/* Devices in one unit of level `level` (level 0: devices per server). */
guint64 topo_cluster_level_size (const TopoCluster *cluster, guint level);
/* The innermost level that contains both devices (0 when in the same server). Same
 * device returns 0. */
guint   topo_cluster_common_level (const TopoCluster *cluster, guint64 dev_a, guint64 dev_b);
/* The outermost level of the scale-up (NVLink) domain: level 0 and the levels above it
 * that carry level 0's bandwidth (bw and busbw), i.e. their units are joined by the same
 * device ports and switches, not by NICs (an NVL72 rack's 4-GPU trays: 1; a DGX
 * server followed by a network: 0). */
guint   topo_cluster_scale_up_level (const TopoCluster *cluster);
/* Index of the level called `name` ("server", "pod", ...), or -1 when there is none. */
gint    topo_cluster_find_level   (const TopoCluster *cluster, const char *name);

/* Aggregates over the whole cluster. */
typedef struct {
  guint64 gpus;
  guint64 hbm_bytes;
  guint64 fp32_cores;       /* 0 when unknown */
  guint64 tensor_cores;     /* 0 when unknown */
  double  peak_flops[TOPO_DTYPE_N];
} TopoAggregate;
void topo_cluster_aggregate (const TopoCluster *cluster, TopoAggregate *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TopoCluster, topo_cluster_unref)

G_END_DECLS
