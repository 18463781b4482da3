/* results/published.h - `tandem validate`: predict the published training runs of
 * data/published-runs.csv and compare with what their sources measured.
 *
 * Contract:
 *  - CSV is read as RFC 4180: fields separated by commas, records by CRLF or LF, a field
 *    in double quotes may hold commas, line breaks and "" (one quote). A UTF-8 BOM is
 *    skipped; the first record is the header; a blank last line is ignored. A record with
 *    more fields than the header, an unterminated quote, or text after a closing quote is
 *    refused with a RES_PUBLISHED_ERROR_PARSE that names the source and the line. A record
 *    with fewer is read with its missing cells empty (some writers drop trailing empty
 *    cells) and listed in ResCsv.short_rows, which `validate` prints as warnings: a line
 *    cut short is then said, not only skipped under the reason its empty cells give.
 *  - Columns are found by header name. `row_id` is required: a file without it is refused
 *    (RES_PUBLISHED_ERROR_PARSE). `tandem validate` and `--explain` refuse, exit 2, a file
 *    without a column every row needs (check_columns in cli/cmd-validate.c: "no hidden
 *    column"): gpu_type (unless --cluster names the cluster), n_gpus, n_layers, hidden,
 *    n_heads, seq_len, global_batch, and one of the measurement columns step_time_s,
 *    tokens_per_s_total, tokens_per_s_per_gpu, tflops_per_gpu, mfu_pct. Any other missing
 *    column reads as empty cells, its rule for an unstated value below (a missing tp with
 *    dp given is 1, a missing precision bf16). In the library (res_csv_get) every missing
 *    column reads as empty cells; a row that needs one is then skipped with its reason.
 *  - Each row is either predicted or skipped with a one-line reason; a skip is not an
 *    error. Errors (GError) are only for input that cannot be read at all.
 *  - One set of simulator defaults per device type (sim_options_init of the preset);
 *    nothing is tuned per row.
 *  - The library never prints. Times in seconds; percentages are percent (x 100).
 *
 * Mapping of a row (each rule also in published.c where it is applied):
 *
 * | column(s)                 | rule                                                         |
 * |---------------------------|--------------------------------------------------------------|
 * | gpu_type (+ network)      | case-insensitive, vendor prose tolerated (cluster_for in     |
 * |                           |   published.c lists the rules): GB300 / GB200 -> their NVL72 |
 * |                           |   SuperPOD presets; B200 -> dgx-b200-superpod; H200 ->       |
 * |                           |   h200-superpod; H100 PCIe / NVL / 94-96 GB HBM2e -> their   |
 * |                           |   presets (the 94-96 GB one at its 500 W clock unless the    |
 * |                           |   row says 700 W); H100 "700W, HBM3" or a 1:7 network ->     |
 * |                           |   h100-24k;                                                  |
 * |                           |   other H100 -> dgx-h100-superpod (64su above 1,024 GPUs);   |
 * |                           |   H800 (not PCIe) -> dgx-h800-superpod (64su above 1,024);   |
 * |                           |   A800 (not PCIe) -> a800-superpod (both NVLink 400 GB/s);   |
 * |                           |   A100 / Ampere: 40 GB ("40GB", "40G", "40 GiB", not "40     |
 * |                           |   GPUs") -> a100-40g-cluster, else selene; naming JUWELS ->  |
 * |                           |   juwels-booster, Leonardo or 64 GB -> leonardo, Jean Zay or |
 * |                           |   an Omni-Path network -> jean-zay (results/published.c has  |
 * |                           |   every rule); "94G" / "96G" as 94 / 96 GB;                  |
 * |                           |   MI300X / MI325X -> mi300x-cluster / mi325x-cluster;        |
 * |                           |   B300 (not GB300) -> dgx-b300-superpod; H20 (not H200) ->   |
 * |                           |   hgx-h20-cluster; MI250X -> frontier (a device per GCD);    |
 * |                           |   V100 -> dgx-2h-v100-cluster, V100 16 GB ->                 |
 * |                           |   dgx1-v100-cluster (fp16 only; a PCIe V100 or Summit's ->   |
 * |                           |   skipped, saying so); L40S -> l40s-pcie-cluster;            |
 * |                           |   GB200 NVL36 / NVL4 on                                      |
 * |                           |   more GPUs than one such NVLink domain -> skipped;          |
 * |                           |   MI355X / MI350X -> mi355x-cluster / mi350x-cluster (AMD    |
 * |                           |   parts also without the X: "mi355", "MI300"; not MI300A);   |
 * |                           |   TPU v5p (one slice, <= 6,144                               |
 * |                           |   chips) -> tpu-v5p-pod; Trainium2 / Trn2 (<= 16 chips, or   |
 * |                           |   <= 64 named UltraServer) -> trn2-ultraserver; GH200 (Grace |
 * |                           |   Hopper, not an H200: "GH200", "NVIDIA GH200 480GB", "GH200 |
 * |                           |   NVL4") -> gh200-nvl4-cluster (the 96 GB HBM3 part, nodes   |
 * |                           |   of four; family other); its 141 / 144 GB HBM3e part and    |
 * |                           |   the NVLink Switch systems ("DGX GH200", NVL2 / NVL32) ->   |
 * |                           |   skipped, saying so;                                        |
 * |                           |   a variant the cell says the part is not is blanked first   |
 * |                           |   ("H100 SXM5 (not PCIe)", "non-PCIe", "not H100 NVL", "H200 |
 * |                           |   (not GH200)", "not the 40GB variant"), and beside SXM a    |
 * |                           |   PCIe mention in a clause naming the host or a link is the  |
 * |                           |   host interface ("H100 SXM, PCIe Gen5 host link"), not the  |
 * |                           |   card;                                                      |
 * |                           |   anything else (TPU v4, Gaudi, A10G) -> skipped: "no        |
 * |                           |   cluster preset for gpu_type X"                             |
 * | framework                 | the stack preset it names (frameworks/stack.c table: NeMo ->  |
 * |                           |   nemo, Megatron-DeepSpeed / DeepSpeed / GPT-NeoX ->         |
 * |                           |   deepspeed, "Megatron-LM" without "Core", a year from 2023  |
 * |                           |   or a YY.MM version from 23 ("v23.08") ("Megatron-LM        |
 * |                           |   (2021)", "Megatron-LM PTD") ->                             |
 * |                           |   megatron-lm-2021 (pre-Core: no SP by default, scatter-     |
 * |                           |   gather and synchronized pipeline sends, DP all-reduce      |
 * |                           |   after the backward), torchtitan, Composer / llm-foundry    |
 * |                           |   (also "LLM Foundry", "llmfoundry", "llm_foundry"),         |
 * |                           |   MaxText / JAX (also Levanter, T5X, Praxis, EasyLM,         |
 * |                           |   AXLearn), other Megatron -> megatron-core, "4D             |
 * |                           |   parallel" / NCCLX -> meta-llama3 (the Llama 3 paper's      |
 * |                           |   stack), FSDP / PyTorch / Hugging Face ("HF Transformers")  |
 * |                           |   / OLMo (PyTorch FSDP, OLMo paper Sec. 3.1) / Lightning /   |
 * |                           |   LitGPT (empty sharding: HYBRID_SHARD, its pretrain.py) ->  |
 * |                           |   pytorch-fsdp); none named (also a dash, "N.A.") ->         |
 * |                           |   megatron-core, also Nanotron / Picotron (the explain line  |
 * |                           |   says "not recognised"                                      |
 * |                           |   when a cell names one no rule knows); a bare Megatron-LM   |
 * |                           |   (no year to 2022) on a device with FP8 tensor cores ->     |
 * |                           |   megatron-core (no such device before late 2022); one whose |
 * |                           |   sharding cell names the distributed optimizer (or, empty,  |
 * |                           |   whose notes quote --use-distributed-optimizer /            |
 * |                           |   --overlap-param-gather), no year to 2021 -> megatron-core  |
 * |                           |   (the option came late 2022). A framework the cell names only|
 * |                           |   to say the run did not use it ("PyTorch (custom, no        |
 * |                           |   Megatron)", "PyTorch FSDP (we did not use Megatron)",      |
 * |                           |   "in-house (not NeMo)") is blanked before any rule reads the|
 * |                           |   cell (framework_cell in published.c). The                  |
 * |                           |   stack's cost figures and its defaults for unstated columns |
 * |                           |   apply                                                      |
 * | n_gpus                    | required; nodes x GPUs ("16x8", "2 nodes x 8 GPUs", "2 nodes |
 * |                           |   (16 GPUs)") -> the GPUs; nodes alone ("2 nodes") ->        |
 * |                           |   skipped "counts nodes"; empty or with K ("16K GPUs") and   |
 * |                           |   tp, pp, dp stated -> tp x pp x cp x dp (where a K reading  |
 * |                           |   agrees); more than the preset's devices ->                 |
 * |                           |   the preset's                                               |
 * |                           |   outermost level repeated (topo_cluster_scale_out); more    |
 * |                           |   than a --cluster FILE's devices -> skipped                 |
 * | n_layers, hidden,         | required (skip names the column); hidden % n_heads == 0 and  |
 * | n_heads, vocab, seq_len   |   n_heads % n_kv_heads == 0 or skipped; an empty vocab of a  |
 * |                           |   row whose model cell names a shipped MoE preset of its     |
 * |                           |   shape -> the preset's vocabulary                           |
 * | n_kv_heads                | empty -> n_heads; "MQA" -> 1; "GQA-8" / "GQA (8 groups)" ->  |
 * |                           |   8; a bare "GQA" -> skipped                                 |
 * | ffn_hidden                | empty -> 4 hidden                                            |
 * | MLP kind                  | SwiGLU when the model name contains "llama" (any case) or    |
 * |                           |   ffn_hidden is given and differs from 4 hidden (gated MLPs  |
 * |                           |   use ~8h/3 rounded); else GeLU (two matrices: GPT-2/3,      |
 * |                           |   Megatron GPT, MPT, BLOOM, NeoX, Nemotron-4's squared ReLU) |
 * | tied embeddings           | GeLU rows tied (GPT-2/3, Megatron GPT, MPT, BLOOM, OPT),     |
 * |                           |   except names with "nemotron" or "neox" (untied in their    |
 * |                           |   configs); SwiGLU (Llama) rows untied                       |
 * | tp, pp                    | empty -> 1 when dp is given (the product check confirms it); |
 * |                           |   empty and dp empty -> skipped "tp not stated", but 1 on a  |
 * |                           |   stack whose configs default to no model parallelism        |
 * |                           |   (defaults.model_parallel "none": maxtext, torchtitan,      |
 * |                           |   pytorch-fsdp, llm-foundry, nemo-automodel)                 |
 * |                           |   tp empty where pp x cp (x dp where stated) = n_gpus -> 1   |
 * |                           |   (and dp 1 without a dp cell: "Pipelines (GPUs) = 8" on     |
 * |                           |   8 GPUs); tp and pp both empty: the rule above              |
 * | cp                        | empty -> 1                                                   |
 * | dp                        | empty -> n_gpus / (tp pp cp); given and tp pp cp dp !=       |
 * |                           |   n_gpus -> skipped "parallel sizes do not multiply to the   |
 * |                           |   GPU count"                                                 |
 * | virtual_pipeline          | a number, or the one number after a label ("VP=5", "vpp 5",  |
 * |                           |   "interleaved (V=4)") -> vpp (Interleaved1F1B when > 1,     |
 * |                           |   else 1F1B); layers per chunk ("--num-layers-per-virtual-   |
 * |                           |   pipeline-stage 4") -> V = n_layers / (pp x 4), skipped     |
 * |                           |   where it does not divide; "non-interleaved", "not          |
 * |                           |   interleaved", "no interleaving" -> 1 ("1F1B" is no V:      |
 * |                           |   "1F1B interleaved" is interleaved); "GPipe" / "DualPipe"   |
 * |                           |   -> that schedule (DualPipe skipped where its counts do not |
 * |                           |   fit); "ZB-H1" / "zero bubble" -> skipped (not modelled);   |
 * |                           |   empty                                                      |
 * |                           |   -> 1; "interleaved (V not stated)" in notes -> the         |
 * |                           |   chunking the stack documents (defaults.pp_layers_per_chunk:|
 * |                           |   meta-llama3 one layer slot a chunk: Llama 3 405B on 16     |
 * |                           |   stages -> (126 + 2) / 16 = V = 8), else the smallest V >= 2|
 * |                           |   that splits the layers (evenly, or one fewer on the first  |
 * |                           |   and last chunk): the same model on megatron-core -> V = 2  |
 * | layer split               | n_layers % (pp vpp) != 0 and (n_layers + 2) % (pp vpp) == 0  |
 * |                           |   -> first = last = (n_layers + 2) / (pp vpp) - 1 (Llama 3   |
 * |                           |   405B: 126 layers on 16 stages, 7 + 14 x 8 + 7); MoE rows:   |
 * |                           |   the recipes' DeepSeek-V3 layouts (res_pub_moe_layer_split) |
 * |                           |   ; any other non-dividing count -> skipped                  |
 * | sequence_parallel         | yes/true/1/on/y/enabled/SP -> on; no/false/0/off/n/disabled/ |
 * |                           |   none/not used/not enabled -> off; after a label its value  |
 * |                           |   ("SP off", "sp=false", "sequence parallelism was not used" |
 * |                           |   -> off); SP named in text -> on unless negated ("no SP",   |
 * |                           |   "without SP", "w/o SP"); "Ulysses", also beside a yes      |
 * |                           |   ("yes (Ulysses, not Megatron SP)") -> off, and the cp      |
 * |                           |   column's degree runs as a2a context parallelism; without a |
 * |                           |   cp degree skipped (DeepSpeed-Ulysses is context            |
 * |                           |   parallelism); other text                                   |
 * |                           |   skipped; empty, a dash, "N.A." -> what the notes say of it,|
 * |                           |   said off ("we did not                                      |
 * |                           |   use sequence parallelism", "--sequence-parallel not set",  |
 * |                           |   "... is unavailable") or named (on only with tp > 1); a    |
 * |                           |   mention said not stated in its own clause and not said off |
 * |                           |   ("recompute/sequence-parallel not stated"; "SP, recompute  |
 * |                           |   unknown" is on) or about Ulysses ("Ulysses sequence        |
 * |                           |   parallelism"; not one beside it: "SP enabled, not Ulysses" |
 * |                           |   is on) says nothing; else on when tp > 1 and the stack's   |
 * |                           |   default has it (megatron-core, nemo; off in                |
 * |                           |   megatron-lm-2021, where --sequence-parallel is opt-in and  |
 * |                           |   only from Korthikanti et al. 2022, and in DeepSpeed's fork)|
 * | zero_stage_or_fsdp        | the rules above map_sharding in published.c: negations       |
 * |                           |   ("FSDP off", "NO_SHARD", a count of 0 after the scheme:    |
 * |                           |   "FSDP 0", NVIDIA's FSDP column; a whole cell "no" / "off" /|
 * |                           |   "false" / "0") -> none; a whole cell "1" / "2" / "3" or    |
 * |                           |   "zero_optimization.stage=N" -> that ZeRO stage; Megatron-  |
 * |                           |   FSDP's "optim_grads_params" / "optim_grads" -> zero3 /     |
 * |                           |   zero2; "HSDP"/"HYBRID_SHARD"/"MiCS" -> hsdp (group from    |
 * |                           |   the text: "shard 16", "replicate 4" or "2 replicas" (dp /  |
 * |                           |   R), "HSDP 16x4"; one that does not divide dp -> skipped; a |
 * |                           |   group of 1 -> none, of dp -> zero3; else one server's DP   |
 * |                           |   ranks: its devices / (tp x cp), skipped where that is 1, a |
 * |                           |   server holding one DP rank; a group of GPUs after "sharded |
 * |                           |   across" / "over" / "within", "MiCS: parameters sharded     |
 * |                           |   across 128 GPUs": N / (tp x cp x pp) ranks, one as large as|
 * |                           |   the DP group or larger -> zero3; only inside the sharding  |
 * |                           |   phrase: not "TP within the 4 GPUs" nor "2 GPU-days");      |
 * |                           |   ZeRO-3 / FSDP over                                         |
 * |                           |   a stated group of GPUs ("ZeRO stage 3, parameters sharded  |
 * |                           |   across 128 GPUs, 4 copies") -> hsdp of that group; torch's |
 * |                           |   "ZeroRedundancyOptimizer" -> zero1; ZeRO-1 / ZeRO-2 over a |
 * |                           |   sub-group ("zero1=8 (within the 8 GPUs of a node)") ->     |
 * |                           |   zero1 / zero2 over all of DP, the explain line saying so; a|
 * |                           |   scheme said off ("FSDP (not                                |
 * |                           |   used)", "not HSDP") is no scheme: a cell naming only such  |
 * |                           |   -> none, except FSDP alone said off ("no FSDP", "FSDP off",|
 * |                           |   "FSDP = 0", "FSDP 0", "0 (no FSDP)"): FSDP off is not the  |
 * |                           |   distributed optimizer off, so the empty cell's reading     |
 * |                           |   where that is zero1 (nemo, megatron-core, deepspeed), else |
 * |                           |   none (a default that is FSDP: pytorch-fsdp, torchtitan,    |
 * |                           |   LitGPT; or none: megatron-lm-2021), and none where the cell|
 * |                           |   also says data parallel only / pure DP / "optimizer not    |
 * |                           |   sharded"; no reshard after the forward said in words ("no  |
 * |                           |   reshard after forward", "params not resharded") -> zero2;  |
 * |                           |   "ZeroRedundancyOptimizer" said off -> none; "ZeRO-1" / "distributed|
 * |                           |   optimizer" / "DistOpt" /                                   |
 * |                           |   NeMo's "distributed_fused_adam" -> zero1; "ZeRO++" ->      |
 * |                           |   zero3 (its                                                 |
 * |                           |   qwZ/hpZ/qgZ compression not modelled); "ZeRO-2", "stage 2",|
 * |                           |   "SHARD_GRAD_OP", "shards optimizer+grads" -> zero2 (on     |
 * |                           |   Megatron-LM, which it moves to megatron-core: its          |
 * |                           |   distributed optimizer, zero1);                             |
 * |                           |   ("ZeRO 1", "zero_stage=1", "sharded optimizer",            |
 * |                           |   "--use-distributed-optimizer" alike; said off: "no         |
 * |                           |   distributed optimizer", "use_distributed_optimizer=False"  |
 * |                           |   -> none); torchtitan's "dp_shard=N" / "dp_replicate=R"     |
 * |                           |   (data_parallel_*_degree) -> FSDP, HSDP (R > 1) or none     |
 * |                           |   (shard 1); offloading ("ZeRO-                              |
 * |                           |   Offload", "ZeRO-Infinity") -> skipped;                     |
 * |                           |   "ZeRO-3", "FSDP", "full shard", "fully sharded" -> zero3,  |
 * |                           |   or zero2 where the stack keeps parameters after the forward|
 * |                           |   (nemo-automodel, unless the cell names full sharding as the|
 * |                           |   mode: "full shard", "FULL_SHARD", "ZeRO-3" -> zero3) or    |
 * |                           |   under PP (torchtitan, also with the mode named);           |
 * |                           |   "reshard_after_forward" True / False in any                |
 * |                           |   spelling -> zero3 / zero2 (alone it names FSDP2); "none" / |
 * |                           |   "DDP" / plain DP ("data parallel", "DP only",              |
 * |                           |   "DistributedDataParallel", "replicated", "unsharded", "no  |
 * |                           |   sharding"), a "sharding" label said off ("sharding: none") ->|
 * |                           |   none (every stack offers none); "stage-3", "stage_3" as    |
 * |                           |   "stage 3"; a bare "ZeRO" -> skipped asking for the stage;  |
 * |                           |   else skipped. Empty (a dash, "N.A.") -> the ZeRO stage or  |
 * |                           |   FSDP the framework cell names, not said off ("FSDP was not |
 * |                           |   used", "instead of FSDP", "use_torch_fsdp2: False" are off)|
 * |                           |   ("HF Accelerate                                            |
 * |                           |   + DeepSpeed ZeRO-3" zero3, "PyTorch FSDP" as FSDP above; the|
 * |                           |   explain line says so; not with hybrid sharding, offloading |
 * |                           |   or ZeRO-Infinity not said off: "PyTorch FSDP (CPU offload  |
 * |                           |   not used)", "DeepSpeed ZeRO-3 (not ZeRO-Infinity)" read as |
 * |                           |   named), else zero1 for NeMo / Megatron-Core /              |
 * |                           |   --overlap-param-gather; else the stack's default (none for |
 * |                           |   older Megatron-LM, megatron-lm-2021; zero1 on megatron-core,|
 * |                           |   the default stack)                                         |
 * | micro_batch               | a number, or the one after a label ("MBS 2", "mbs=2, gas=8", |
 * |                           |   "micro batch size: 2", "per-device batch 2", "batch/GPU    |
 * |                           |   4", MaxText's "per_device_batch_size=8" / "pdbs=8"); a     |
 * |                           |   local batch ("local_batch_size=4", torchtitan's; "LBS 4",  |
 * |                           |   "local batch size 8") -> the micro-batch at pp 1, under PP |
 * |                           |   the stack's split (torchtitan: local / (pp vpp) where it   |
 * |                           |   divides, else 1; others: one-sample micro-batches); empty  |
 * |                           |   (or "not stated", "see notes", "default") -> such a label  |
 * |                           |   in the notes, all of them agreeing, else 1; a notes label  |
 * |                           |   only where it reads                                        |
 * |                           |   as the run's setting (a clause's start or config words     |
 * |                           |   before it, no negation or other runs: not "previous work   |
 * |                           |   used mbs=4", "No mbs 4 runs.", "lbs = 10 (pounds)");       |
 * |                           |   with pp > 1 under a stack that runs pp x stages            |
 * |                           |   per rank micro-batches (torchtitan) -> local batch /       |
 * |                           |   (pp vpp) where it divides (405B, 32 on PP 8 -> 4); other   |
 * |                           |   text with no size read ("auto") -> skipped, saying so; a   |
 * |                           |   size in tokens ("16 tokens", "batch/GPU 4096 tokens") is   |
 * |                           |   no micro-batch: skipped in the cell, not read in the notes |
 * | global_batch              | required, or empty with micro_batch, grad_accum and dp (or   |
 * |                           |   tp and pp, or a pp that fills the GPUs) given: their       |
 * |                           |   product; empty with grad_accum empty too -> micro_batch x  |
 * |                           |   the stack's defaults.grad_accum x dp at pp 1 (torchtitan,  |
 * |                           |   maxtext, pytorch-fsdp, deepspeed: 1), skipped with a hint  |
 * |                           |   at pp > 1, "missing global_batch" on a stack with none     |
 * |                           |   (megatron-core, nemo, llm-foundry); in tokens ("16M        |
 * |                           |   tokens", "2 million tokens", "1048576 tokens") ->          |
 * |                           |   tokens / seq_len, K / M / "thousand" / "million" read      |
 * |                           |   decimal and binary and the one that divides taken (none or |
 * |                           |   both: skipped), "Ki" / "Mi" binary ("4 Mi tokens"); a      |
 * |                           |   magnitude and no unit ("1.5K", "2 million") -> skipped     |
 * |                           |   asking which; a rounded figure with its exact product in   |
 * |                           |   brackets -> the product where it lies within the figure's  |
 * |                           |   rounding ("2.95M tokens (8 x 90 x 4096)" -> 720 of 4096);  |
 * |                           |   a batch per GPU / device / rank / accelerator ("8 per GPU",|
 * |                           |   "1M tokens per GPU") is per data-parallel replica -> x dp  |
 * |                           |   (the dp cell, else n_gpus / (tp pp cp); neither: skipped); |
 * |                           |   "16 per node" -> x the nodes (n_gpus / the preset's GPUs a |
 * |                           |   server) where each node holds whole replicas, else skipped;|
 * |                           |   a product written out -> every factor ("2 per GPU x 8 GPUs |
 * |                           |   x 2 nodes" -> 32), skipped where it is not per GPU x dp    |
 * |                           |   (or per node x the row's nodes); a batch per GPU equal to  |
 * |                           |   a stated micro_batch, with grad_accum stated, is a         |
 * |                           |   micro-step's -> x dp x grad_accum; neither micro_batch nor |
 * |                           |   micro_batch x grad_accum -> skipped;                       |
 * |                           |   also after a label: "gbs=128", "GBS 512", "global batch:   |
 * |                           |   1,024"                                                     |
 * | seq_len                   | also after a label: "seq 8192", "seq_len=8K"                 |
 * | tp, pp, cp, dp, ep        | also after their own name: "TP=4", "tp 4", "TP4"; ep also    |
 * |                           |   after an expert-TP pair ("ETP1 EP64", "etp=1, ep=64" -> 64,|
 * |                           |   never the ETP's number)                                    |
 * | step_time_s               | seconds; "850 ms" / 1000, "1.5 min" x 60                     |
 * | unstated cells            | a cell that says nothing ("not stated", "unknown", "n/a",    |
 * |                           |   "N.A.", "-", "?", an em or en dash) reads as empty in the  |
 * |                           |   framework, sequence_parallel, zero_stage_or_fsdp,          |
 * |                           |   recompute and precision columns: their rule for empty      |
 * | numbers                   | "8,192" and "8 192" are 8192 (a comma, a space, a no-break   |
 * |                           |   or a thin space between groups of three; other groups, as  |
 * |                           |   "1 02" or "1024 000", refuse the row); a magnitude letter  |
 * |                           |   or word ("16K", "8Ki", "2 million") makes a                |
 * |                           |   count text (not stated), except seq_len: K / Ki = 1024, M  |
 * |                           |   = 2^20 (another letter: not stated), and global_batch in   |
 * |                           |   tokens ("0.5M tokens")                                     |
 * | recompute                 | starts with full / selective / none ("selective (modules:    |
 * |                           |   ...)" without core_attn -> none; the named modules, mlp    |
 * |                           |   too, recomputed in dense as in MoE rows); "AC: X" / "AC X" |
 * |                           |   -> X ("AC op" -> selective op-level); "yes", "true", "y",  |
 * |                           |   "AC", a check mark, "activation checkpointing", "every     |
 * |                           |   layer" (no kind, not said off) -> full; "off" / "AC off" / |
 * |                           |   "activation checkpointing off" / "disable" / "n" / a cross |
 * |                           |   / "without recompute" / "w/o AC" -> none ("w/o" / "without"|
 * |                           |   before a word for recompute only, short ones too: "w/o     |
 * |                           |   ckpt", "w/o act ckpt", "w/o recomp", "w/o full recompute"; |
 * |                           |   "activation checkpointing without TE" is full); a kind said|
 * |                           |   off                                                        |
 * |                           |   beside the other ("no full recompute (selective only)") -> |
 * |                           |   the other, a cell that starts with a kind said off ("full  |
 * |                           |   recompute disabled") -> none; "core_attn" anywhere ->      |
 * |                           |   selective; "SAC" ->                                        |
 * |                           |   selective (op-level if said); "--recompute-granularity X"  |
 * |                           |   -> X; "uniform" (anywhere) -> full; "block" with a layer   |
 * |                           |   count ("--recompute-method block --recompute-num-layers 4",|
 * |                           |   "block, 4 layers") -> full over those N layers a chunk,    |
 * |                           |   without one -> skipped with a hint; every N-th layer       |
 * |                           |   ("every other layer", "selective_ac_option 2") -> full     |
 * |                           |   over floor(chunk / N) layers; JAX's "nothing_saveable" ->  |
 * |                           |   full,                                                      |
 * |                           |   "everything_saveable" -> none, "remat" / "remat_policy" as |
 * |                           |   labels ("remat_policy=full"); "grad checkpointing",        |
 * |                           |   "activation ckpt", "checkpoint_activations" -> full, and   |
 * |                           |   labels with "checkpoint" ("Activation Ckpt FALSE",         |
 * |                           |   "activation ckpt: false", "checkpoint=False" -> none);     |
 * |                           |   a yes/no word and a qualifier: "off (checkpoint=False)" -> |
 * |                           |   none; "yes (full)", "Yes, full recompute" -> the kind it   |
 * |                           |   names, else full ("yes (activation re-materialization)",   |
 * |                           |   "yes ()"); the attention alone ("on (attention only)") ->  |
 * |                           |   selective; "yes (not full, selective)" -> selective; one   |
 * |                           |   that says the other answer ("yes (none)"), only the kind   |
 * |                           |   it was not ("yes (not full)") or the attention and other   |
 * |                           |   parts ("yes (attention and MLP)") -> skipped;              |
 * |                           |   "offload" with a layer count ("activations of 20 layers    |
 * |                           |   offloaded", "cpu_offloading_num_layers=20") -> none and   |
 * |                           |   that many layers offloaded; "partial", "offload" without a |
 * |                           |   count, also after full ("full AC + CPU offload") -> skipped|
 * |                           |   with a hint (offloading said off or not used, "full (w/o   |
 * |                           |   CPU offload)", "full recompute instead of CPU offload",    |
 * |                           |   "selective, CPU offload not used", "yes (no offloading)",  |
 * |                           |   leaves the kind); empty -> none unless                     |
 * |                           |   notes say "full recompute", "full activation recompute" or |
 * |                           |   "activation checkpointing" (full) or "selective recompute" |
 * | precision                 | fp8 for fp8 / FP8-hybrid / float8 / e4m3 / MXFP8 / "8-bit    |
 * |                           |   floating point" (the stack's                               |
 * |                           |   recipe: GEMMs in FP8, attention bf16 unless "fp8_dpa" /    |
 * |                           |   "fp8 attention" / "incl. attention"); NVFP4 / fp4 -> fp4   |
 * |                           |   (Blackwell); a 16-bit float named or nothing stated -> bf16|
 * |                           |   (fp16 on V100, where a cell naming only bf16 is skipped)   |
 * |                           |   ; "no FP8" / "without fp8" / "w/o FP8" / "fp8: off" / "FP8 |
 * |                           |   (not used)" -> not fp8; FP8 attention said off likewise    |
 * |                           |   ("FP8 (not FP8 attention)": attention bf16); an empty cell |
 * |                           |   whose notes say the run trained in FP8 ("trained in FP8",  |
 * |                           |   "FP8 training", "with FP8"; not negated, not "FP8 results  |
 * |                           |   in table 3", not in a sentence of comparison, trial or plan|
 * |                           |   ("tried", "compared", "unlike", "planned", "next run",     |
 * |                           |   "vs", "reaches", "baseline", "ablation"), and no BF16 /    |
 * |                           |   FP16 named as the run's: of the run or its training, not of|
 * |                           |   a part ("BF16 master weights", "gradients reduced in BF16" |
 * |                           |   say nothing) nor after "than" ("faster than BF16")) -> fp8,|
 * |                           |   the explain line saying so; else bf16; no                  |
 * |                           |   16/8/4-bit float named: "fp32" / "TF32" / "int8" ->        |
 * |                           |   skipped, saying which; other text ("FP6") -> skipped "not  |
 * |                           |   recognised"                                                |
 * |                           |   ; fp8 with "float8 all-gather" / "fp8 all-gather" /        |
 * |                           |   "all-gather in float8" in precision, framework or notes    |
 * |                           |   (first that says) -> FSDP's float8 all-gather (else bf16); |
 * |                           |   bf16 under a rowwise recipe (torchao gathers float8 only   |
 * |                           |   tensorwise) or where the precision cell also names a bf16  |
 * |                           |   one; "no fp8 all-gather" beside fp8 leaves the GEMMs fp8   |
 * | FP8 recipe                | MXFP8 / FP8-MX / "FP8 MX" -> mxfp8; current scaling /        |
 * |                           |   "current-scaling" / FP8-CS / tensorwise -> tensorwise;     |
 * |                           |   delayed -> delayed; torchao's "dynamic" -> tensorwise;     |
 * |                           |   NeMo's recipe codes joined to fp8 or in brackets           |
 * |                           |   ("fp8_ds", "FP8 (DS)" delayed, "(CS)", "(MX)", "(SC)",     |
 * |                           |   "fp8_ss" sub-channel: blockwise);                          |
 * |                           |   a recipe said off ("not MXFP8", "no mxfp8", "MXFP8 off")   |
 * |                           |   is no recipe of the row: "fp8 (not MXFP8)" -> the stack's, |
 * |                           |   "MXFP8 off; fp8 current scaling" -> tensorwise; else the   |
 * |                           |   stack's                                                    |
 * | attention                 | unfused (scores materialized) when source or framework is    |
 * |                           |   dated 2017-2022 or SC'21, or the framework is DeepSpeed /  |
 * |                           |   Megatron-DeepSpeed (before FlashAttention reached them);   |
 * |                           |   flash when framework or notes name FlashAttention ("flash  |
 * |                           |   attention", "flash-attn", "FA2" alike; on an unfused stack |
 * |                           |   the kernel class is then FA2), and                         |
 * |                           |   otherwise; the kernel class is the stack's, but FA2 where  |
 * |                           |   the notes quote NVTE_FUSED_ATTN=0 on a cuDNN stack (TE     |
 * |                           |   then runs its FlashAttention backend)                      |
 * | CP communication          | named in the cp cell ("2 (a2a)", "CP=2, all-gather", "2      |
 * |                           |   (ring)", Ulysses = a2a) or as --cp-comm-type in notes ->   |
 * |                           |   that (a2a+p2p -> skipped); all-gather when notes say       |
 * |                           |   "all-gather based CP" or "K/V                              |
 * |                           |   all-gathered" (Llama 3), else Megatron's p2p ring          |
 * | overlap                   | overlap_grad_reduce / overlap_param_gather: the stack's      |
 * |                           |   defaults; tp_comm_overlap when the notes say               |
 * |                           |   --tp-comm-overlap, or the stack has it on by default and   |
 * |                           |   tp > 1 (NeMo: ub_tp_comm_overlap: true); off for a         |
 * |                           |   Megatron-Bridge NVFP4 row and where the notes quote        |
 * |                           |   "tp_comm_overlap=False"                                    |
 * | gradients                 | reduced in bf16 where the stack does (NeMo)                  |
 * | moe                       | `key=value;` MoE fields (results/published-moe.h); a cell    |
 * |                           |   that does not parse refuses the row with its reason; a     |
 * |                           |   MoE row is mapped by res_pub_moe_apply (published-moe.c);  |
 * |                           |   what the cell leaves unstated is read from the row's other |
 * |                           |   cells (res_pub_moe_read_row): etp from the ep cell ("EP64, |
 * |                           |   ETP1", "64 (expert TP 1)") or notes ("--expert-tensor-     |
 * |                           |   parallel-size 1"); forced balance and token drop from the  |
 * |                           |   model cell or notes ("force-balance the token              |
 * |                           |   distribution", "(tokendrop)"; "token-dropless" is none);   |
 * |                           |   etp unstated and the experts not folding at etp = tp ->    |
 * |                           |   skipped with the etp that folds in the hint; no moe cell   |
 * |                           |   (or no moe column, as in the shared CSV) and the model     |
 * |                           |   cell naming a shipped MoE preset of the row's hidden,      |
 * |                           |   layers and heads ("Qwen3-30B-A3B", "DeepSeek V3",          |
 * |                           |   "Mixtral 8x7B", "gpt-oss-120b"): the preset's MoE fields   |
 * |                           |   (res_pub_moe_from_preset), the rest read as above; else    |
 * |                           |   the shape the model cell or notes state ("8 experts top-2", |
 * |                           |   res_pub_moe_arch_in_text); a dispatcher unstated from the  |
 * |                           |   framework cell or notes ("+ DeepEP"); an empty ep cell of  |
 * |                           |   an MoE row: the notes' EP ("EP 8")                         |
 * | plan_resolve refuses      | skipped with plan_resolve's message                          |
 *
 * Measured step time, first that applies (recorded in measured_source):
 *   "step_time_s"                 the cell;
 *   "tokens_per_s_total"          global_batch x seq_len / tokens_per_s_total;
 *   "tokens_per_s_per_gpu"        global_batch x seq_len / (tokens_per_s_per_gpu x n_gpus);
 *                                 (a rate with K / M is SI: "31.5K" = 31,500); a node's
 *                                 rate ("96,000 per node", "12000 (per node)", "/node",
 *                                 "per server") / the GPUs of a server of the row's
 *                                 cluster (at most n_gpus), said in the source; the same
 *                                 for a node's tflops_per_gpu ("3200 per node"); only
 *                                 where the node follows the leading figure past unit
 *                                 words: "465.9 (3.7 PFLOP/s per node)", "2000 per H100
 *                                 (16K per node)" are a GPU's
 *   "tflops_per_gpu (HFU: ...)"   a tflops_per_gpu cell labelled HFU ("500 (HFU, incl.
 *                                 recompute)", "500 HFU"; the label right after the
 *                                 figure, not "HFU 620", "non-HFU" or "model FLOPs; HFU
 *                                 ...", which leave it model FLOPs): hardware TFLOP/s,
 *                                 so hw_flops / n_gpus / (tflops_per_gpu x 1e12),
 *                                 hw_flops the step program's
 *                                 hardware FLOPs of the row's plan (the recomputed forward
 *                                 counted; what the predicted HFU is taken from); no
 *                                 convention needed;
 *   "tflops_per_gpu (CONV)"       flops_per_token(CONV) x global_batch x seq_len /
 *                                 (tflops_per_gpu x 1e12 x n_gpus) ("PFLOP/s" x 1000);
 *   "mfu_pct (CONV)"              the same with tflops = mfu_pct / 100 x peak, the peak of
 *                                 the preset's device in the row's precision; an
 *                                 mfu_pct below 1 without "%" -> skipped (a fraction).
 *   "mfu_pct (HFU: ...)"          an mfu_pct labelled HFU ("52 (HFU)", "52% hardware
 *                                 FLOPs"; not "47 (HFU 62)", "47 (MFU; HFU ...)"), else
 *   "hfu_pct (HFU: ...)"          the hfu_pct cell: hw_flops / n_gpus / (HFU / 100 x peak),
 *                                 the peak as for mfu_pct (below 1 without "%": skipped);
 *                                 "(HFU: recomputed forward counted)" in the source.
 *   CONV from flops_convention: "SC'21", "Narayanan" or "96*B" -> megatron96;
 *   "Korthikanti" or "72*B" -> megatron72; "Megatron-Core", "num_floating_point_operations"
 *   or "NeMo/Megatron model FLOPs" -> mcore; "PaLM", "Llama 3 paper", "torchtitan",
 *   "llm-foundry" (or "LLM Foundry"), "6N", "6*N", "6 * N", "6 x N" or "6·N" -> palm; "causal" without "non-causal" -> causal;
 *   an mfu_pct read with megatron96 where the cell does not say the recompute is counted
 *   ("recompute", "HFU") -> megatron72 (an MFU leaves the recomputed forward out:
 *   MegaScale's "MFU ... citing Narayanan et al.");
 *   empty, "not stated", "formula not printed" (or "not published / given / shown /
 *   specified / provided / disclosed") -> the count of the framework the row
 *   names (its stack's tflops_convention: mcore for megatron-core and nemo, palm for
 *   torchtitan, llm-foundry and meta-llama3; none for 2021's Megatron-LM, whose papers'
 *   count depends on the recompute; the measured source says "the STACK stack's own count:
 *   no convention stated"), unless the cell names another kind of count ("HFU", "hardware",
 *   "custom", a formula or a figure other than the peak);
 *   otherwise unknown (those two sources unusable).
 *   Numeric cells: the leading number is read ("430 (approx.)" is 430); a tilde, the
 *   almost-equal sign or a word that says approximate before it ("~430", "around 430",
 *   "approx. 430", "approximately", "about", "roughly") is skipped and the measurement
 *   said approximate; a cell with no leading number ("from memory, unverified", "circa
 *   2023: 380": circa and ca. date a figure) is missing.
 *
 * err_pct = 100 (predicted - measured) / measured; MAPE = mean |err_pct| over predicted
 * rows. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "models/model.h"
#include "topology/cluster.h"
#include "plan/plan.h"
#include "frameworks/stack.h"
#include "plan/program.h"
#include "results/store.h"
#include "results/published-moe.h"

G_BEGIN_DECLS

#define RES_PUBLISHED_ERROR (res_published_error_quark ())
GQuark res_published_error_quark (void);

typedef enum {
  RES_PUBLISHED_ERROR_IO,       /* the file cannot be read */
  RES_PUBLISHED_ERROR_PARSE,    /* not RFC 4180 CSV, or no row_id column */
} ResPublishedError;

/* ---- CSV ------------------------------------------------------------------------------ */

typedef struct {
  char      **columns;       /* header names, NULL-terminated */
  guint       n_columns;
  GPtrArray  *rows;          /* char ** of n_columns cells each (NULL-terminated) */
  char       *source;        /* path or name given to the parser */
  char      **short_rows;    /* one line per record with fewer fields than the header
                              * ("FILE:LINE: N fields but the header has M columns; ..."),
                              * NULL-terminated; NULL when there are none */
} ResCsv;

ResCsv     *res_csv_parse      (const char *text, gssize length, const char *source,
                                GError **error);
ResCsv     *res_csv_load       (const char *path, GError **error);
void        res_csv_free       (ResCsv *csv);                          /* NULL-safe */
guint       res_csv_n_rows     (const ResCsv *csv);
/* Index of a column, -1 when absent. */
int         res_csv_column     (const ResCsv *csv, const char *name);
/* The cell of row `row` in column `name`; "" when the column is absent. */
const char *res_csv_get        (const ResCsv *csv, guint row, const char *name);

/* ---- One published row ---------------------------------------------------------------- */

typedef enum {
  RES_PUB_FAMILY_OTHER,
  RES_PUB_FAMILY_H100,
  RES_PUB_FAMILY_A100,
  RES_PUB_FAMILY_H200,
  RES_PUB_FAMILY_B200,   /* Blackwell: B200, GB200, GB300 */
  RES_PUB_FAMILY_N,
} ResPubFamily;

const char *res_pub_family_name (ResPubFamily family);   /* "other", "h100", "a100", "h200", "b200" */
/* The family a gpu_type text or a device name belongs to ("H100-SXM5-80GB" -> h100,
 * "GB200-186GB" -> b200; H800 with H100, A800 with A100), case-insensitive. */
ResPubFamily res_pub_family_for_text (const char *text);

/* The planner's view of a row whose schedule is interleaved but whose V is not stated
 * (validate predicts it at the V of its stack's chunking, else the smallest V >= 2 that
 * splits the layers): each V of
 * {1, 2, 4, 8} that splits them (evenly, or with the embedding and the loss in a layer
 * slot each), predicted as validate predicts the row (V = 1 under 1F1B), and the V a
 * planner picks: the fastest of those that fit in HBM (the highest MFU). */
#define RES_PUB_N_VS 4
typedef struct {
  int      n;                       /* Vs that split the layers, filled from the front */
  int      v[RES_PUB_N_VS];
  double   step_s[RES_PUB_N_VS];
  double   mfu_pct[RES_PUB_N_VS];   /* the row's convention (PaLM when it has none) */
  gboolean fits[RES_PUB_N_VS];
  double   peak_bytes[RES_PUB_N_VS];
  int      best;                    /* index of the fastest that fits; -1 when none fits */
} ResPubVSweep;

/* How far the mapping read a row's plan columns, in the order it reads them (a row
 * skipped part way leaves the later ones unread: explain says so for them) */
typedef enum {
  RES_PUB_READ_NONE = 0,
  RES_PUB_READ_DEGREES,    /* tp, pp, cp, dp, virtual_pipeline */
  RES_PUB_READ_SP,         /* sequence_parallel */
  RES_PUB_READ_SHARDING,   /* zero_stage_or_fsdp */
  RES_PUB_READ_RECOMPUTE,  /* recompute */
  RES_PUB_READ_BATCH,      /* micro_batch, global_batch */
  RES_PUB_READ_ALL,        /* precision, attention, overlaps, gradients, MoE */
} ResPubRead;

/* A row mapped to (model, cluster, plan) and, after res_published_case_predict, predicted.
 * Owns everything in it. */
typedef struct {
  gint64        row_id;
  char         *model_label;        /* the row's `model` cell */
  const char   *model_preset;       /* the shipped model preset the row's model is (a hybrid
                                     * Mamba-2 model named with its shape), or NULL */
  char         *gpu_type;
  char         *framework_read;     /* the framework cell with the names it says the run
                                       did not use blanked, as the rules read it (NULL
                                       until read) */
  gint64        n_gpus;             /* 0 when missing */
  ResPubFamily  family;
  char         *cluster_name;       /* preset, NULL when none applies */
  gboolean      cluster_given;      /* the cluster is the user's --cluster, not the preset
                                     * the row's gpu_type maps to */
  guint64       scaled_from;        /* the preset's devices when the run was larger and the
                                       preset's outermost level was repeated; else 0 */
  char         *network_note;       /* how a scale-out bandwidth the network cell states
                                       replaced the preset's (NULL: none stated, or the
                                       preset's own) */
  gboolean      fp8_attention;      /* the row ran its attention core in FP8 */
  const char   *attn_why;           /* static: why the attention runs unfused where the
                                     * row's text does not say so (NULL: it does, or fused) */
  const char   *fp8_recipe_why;     /* static: where an FP8 recipe the row does not name
                                       came from (NULL: named in the row, or the stack's) */
  gboolean      fp4;                /* NVFP4 GEMMs (precision text), on a device with FP4 */
  const char   *precision_why;      /* static: where a precision the cell does not state
                                       came from (the notes' FP8); NULL: the cell's, or
                                       the bf16 default */
  FwStack      *stack;              /* the software stack the framework column names
                                       (megatron-core when it names none) */
  char         *micro_batch_why;    /* how a micro-batch that is no plain count in its
                                       cell was read ("the local batch 32 in the notes
                                       over pp x V micro-batches ..."); NULL: the cell's
                                       count, or unstated */
  char         *batch_why;          /* how a global_batch cell per GPU or per node was
                                       read ("8 per GPU x dp 8: ..."), or an empty one
                                       derived ("the cell is empty: micro_batch 6 x
                                       grad_accum 24 x dp 1"); NULL: the cell is the
                                       global batch */
  guint         degrees_defaulted;  /* bit 0 tp, bit 1 pp: not stated, taken as 1 (the
                                     * stack's defaults.model_parallel "none") */
  char         *tp_why;             /* how a tp the row leaves empty was read as 1 where its
                                       other degrees already fill the GPUs ("not stated: pp
                                       8 = n_gpus 8 leaves 1"); NULL: stated, or the
                                       stack's default (degrees_defaulted) */
  const char   *recompute_why;      /* static: how a named remat policy or a partial
                                       recompute was read (NULL: as the cell says) */
  const char   *vocab_preset;       /* static: the MoE preset whose vocabulary an empty
                                       vocab cell took (NULL: the cell's, or none) */
  const char   *stack_why;          /* static: why the stack is not the one the framework
                                       cell names ("not recognised: the default", ...);
                                       NULL when it is */
  int           plan_read;          /* how far the plan's columns were read (ResPubRead):
                                       on a row skipped part way, the explain lines past it
                                       say they were not read instead of a default */
  gboolean      zero_is_distopt;    /* the stack became megatron-core because the sharding
                                       cell names ZeRO-1/2 on Megatron-LM: its ZeRO-2 is
                                       the distributed optimizer (zero1) */
  const char   *sp_why;             /* static: where sequence parallelism an empty cell
                                       leaves came from (the notes); NULL: the cell's, or
                                       the stack's default */
  const char   *sharding_why;       /* static: how the sharding was read where the cell
                                       alone does not give it (FSDP said off: the stack's
                                       default; a ZeRO-1 group not modelled); NULL: as the
                                       cell says */
  const char   *grad_dtype_why;     /* static: why the gradients are reduced in the dtype
                                       read (a cell's key, fms-fsdp's policy); NULL: the
                                       stack's */
  const char   *fp8_param_why;      /* static: which cell named --fp8-param-gather
                                       (plan.fp8_param_gather); NULL: the stack's */
  const char   *fsdp_ag_why;        /* static: which cell said FSDP's weight all-gather
                                       runs in float8 or in bf16 (plan.fsdp_float8_all_
                                       gather); NULL: no cell says, the stack's default */
  const char   *compile_why;        /* static: why the run is compiled where no cell names
                                       torch.compile (async TP needs it); NULL: named, or
                                       not compiled */

  ModelSpec    *model;              /* NULL when skipped before it was built */
  TopoCluster  *cluster;            /* NULL when skipped before it was found */
  Plan          plan;               /* resolved when ready */
  gboolean      plan_valid;         /* plan holds a plan (resolved when ready) */
  gboolean      vpp_unstated;       /* interleaved, V not stated: V is validate's rule's */
  char         *vpp_why;            /* how V was derived where the cell gives layers per
                                       virtual stage ("from 2 layers per virtual stage:
                                       16 layers / (pp 4 x 2)"); NULL: the cell's V, a
                                       schedule named, or the unstated rule */
  ResPubVSweep  v_sweep;            /* n 0 until res_published_case_v_sweep */
  gboolean      ready;              /* mapped and resolved: can be predicted */

  double        measured_step_s;    /* NaN when none could be derived */
  char         *measured_source;    /* "step_time_s", "tflops_per_gpu (megatron96)", ... */
  gboolean      has_convention;     /* the row's flops_convention is known */
  ModelFlopConvention convention;
  gboolean      flops_6n;           /* the convention is 6N alone ("6ND", Kaplan / Chinchilla:
                                     * no attention term): convention is PaLM's, whose
                                     * 6 N the row counts without the 12 L H d s term */
  double        flops_6n_ratio;     /* 6 N / PaLM's FLOPs per token (1 unless flops_6n) */
  double        published_mfu_pct;  /* the mfu_pct cell in percent; NaN when empty */
  gboolean      mfu_as_fraction;    /* the mfu_pct cell is a fraction ("0.68", no percent
                                       sign): published_mfu_pct is 100 times it */

  gboolean      predicted;
  double        predicted_step_s;   /* NaN until predicted */
  double        err_pct;            /* NaN until predicted */
  double        predicted_mfu_pct[MODEL_FLOPS_N_CONVENTIONS];
  double        predicted_hfu;      /* executed FLOPs / peak, a fraction; NaN until
                                     * predicted */
  gboolean      fits;               /* predicted memory fits the device */
  double        peak_memory_bytes;  /* predicted, per GPU */
  /* Where the predicted step goes (means over stages, seconds): compute stream busy,
   * pipeline bubble, communication not hidden behind compute by kind (PROG_COMM_*). */
  double        predicted_compute_s;
  double        predicted_bubble_s;
  double        predicted_exposed_s[PROG_COMM_N];
  /* CPU offload copies over the host link (sim/simulate.h SIM_KIND_OFFLOAD): busy, and
   * the part of it compute waited for */
  double        predicted_offload_s, predicted_exposed_offload_s;

  ResPubMoe     moe;                /* the `moe` cell (present FALSE: a dense row) */
  gboolean      held_out;           /* notes carry "[held out": a check row, summarized
                                       apart from the dev rows (MoE rows stay in moe_*) */

  char         *skip_reason;        /* NULL unless skipped */
  const char *const *cost_overrides; /* "key=value" applied after the device defaults
                                        (calibration studies); borrowed, may be NULL */
} ResPublishedCase;

/* Maps row `row` of `csv`. Always succeeds: a row that cannot be mapped comes back with
 * skip_reason set and ready FALSE. Free with res_published_case_free. */
ResPublishedCase *res_published_case_new     (const ResCsv *csv, guint row);
/* The same on `cluster` (borrowed) instead of the preset the row's gpu_type maps to. */
ResPublishedCase *res_published_case_new_on  (const ResCsv *csv, guint row,
                                              TopoCluster *cluster);
void              res_published_case_free    (ResPublishedCase *c);     /* NULL-safe */
/* Predicts a ready case (sim_predict with the preset's defaults) and fills predicted_*,
 * err_pct, fits. A failed prediction marks the case skipped ("prediction failed: ...").
 * Returns whether the case is now predicted. */
gboolean          res_published_case_predict (ResPublishedCase *c);
/* Fills c->v_sweep for a predicted dense case whose V is not stated (vpp_unstated);
 * FALSE (n 0) for any other case or when no V of {1, 2, 4, 8} splits the layers. */
gboolean          res_published_case_v_sweep (ResPublishedCase *c);
/* "tp8.pp16.dp64.mbs1" plus ".cp2", ".vpp3", ".zero3", ".full"/".sel", ".fp8", ".unfused"
 * when they apply; NULL when the case has no plan. */
char             *res_published_case_plan_string (const ResPublishedCase *c);
/* The GPU count of row `row` as validate reads it (its n_gpus cell: "1,536", "16x8", "2
 * nodes x 8 GPUs"; an empty or "16K" cell from tp x pp x cp x dp); 0 when not read. The
 * store keeps this figure (it had parsed the cell with strtoll: "1,536" stored as 1). */
gint64            res_published_row_gpus (const ResCsv *csv, guint row);
/* A positive whole count as the mapping reads a count cell ("7", "7.0", "1,024"; "1,0" is
 * 1: the number it starts with, a decimal comma being refused elsewhere): the row-id
 * duplicate check keys ids by it. FALSE when the cell is no such count. */
gboolean          res_published_cell_count (const char *cell, gint64 *out);
/* Whether a numeric cell gives its figure as approximate: a tilde, the almost-equal sign or
 * a word that says so before the number ("~64", "about 64", "approx. 64"); the explain
 * output says so beside the figure read. */
gboolean          res_published_cell_approximate (const char *cell);
/* The row_id of row `row` (res_published_cell_count of its cell: "7", "4.0" and "1e1" are
 * 7, 4 and 10); FALSE when it is no whole number from 1 to 2^31 - 1 ("4.5", "x", "0"), a
 * row the mapping skips saying so. validate, --only, --explain and the store read ids by
 * it alone. */
gboolean          res_published_row_id (const ResCsv *csv, guint row, gint64 *out);
/* Pipeline schedules a step (plan.h pp_schedules) from a row's notes ("LBS <n> (local batch
 * per pipeline step)"): GBS / (dp x n); 1 where the notes state none. */
/* The scale-out bandwidth per GPU, in Gb/s per direction, that a published row's network
 * cell states ("8x400 Gb/s", "1600 Gbps node-node", "EFA 400 Gbps per node", "400 Gb/s per
 * GPU"), a node being `node` GPUs and the preset's NICs giving `preset_gbps` a GPU (0:
 * none known); 0 where it states none that can be read so (no figure, no scope, or only
 * NVLink / PCIe figures). `how` (may be NULL) gets the figure as read (g_free). */
double            res_pub_network_gbps_per_gpu (const char *network, guint64 node,
                                                double preset_gbps, char **how);
int               res_pub_pp_schedules (const char *notes, gint64 global_batch, gint64 dp,
                                        int micro_batch);

/* ---- A validation --------------------------------------------------------------------- */

typedef void (*ResPublishedProgress) (guint done, guint total, gpointer user_data);

typedef struct {
  const gint64 *only_ids;          /* rows to keep (NULL: all) */
  guint         n_only_ids;
  const char   *gpu_type_substr;   /* keep rows whose gpu_type contains it, any case */
  const char *const *cost_overrides; /* "key=value" cost options for every row (NULL: the
                                      device defaults, as validation requires) */
  ResPublishedProgress progress;   /* called after each row; may be NULL */
  gpointer      progress_data;
  /* Every row on this cluster (a user's own, `validate --cluster FILE`) instead of the
   * preset its gpu_type maps to; borrowed; NULL: the mapping */
  TopoCluster  *cluster;
} ResPublishedOptions;

/* n, MAPE, max and the families count the dense dev rows only (the calibration set of
 * issue 13); rows with a `moe` cell are summarized apart in the moe_* fields, dense rows
 * whose notes say "[held out" (check rows, not fitted on) in the held_* fields. */
typedef struct {
  guint  n;                        /* predicted dense rows */
  guint  n_skipped;
  double mape_pct;                 /* NaN when n == 0 */
  double max_abs_err_pct;          /* NaN when n == 0 */
  gint64 max_err_row_id;           /* -1 when n == 0 */
  guint  n_family[RES_PUB_FAMILY_N];
  double mape_family_pct[RES_PUB_FAMILY_N];   /* NaN where n_family is 0 */
  guint  n_moe;                    /* predicted MoE rows */
  guint  n_moe_rows;               /* MoE rows, predicted or skipped */
  double mape_moe_pct;             /* NaN when n_moe == 0 */
  double max_abs_err_moe_pct;      /* NaN when n_moe == 0 */
  gint64 max_err_moe_row_id;       /* -1 when n_moe == 0 */
  guint  n_held;                   /* predicted held-out dense rows */
  guint  n_held_rows;              /* held-out dense rows, predicted or skipped */
  double mape_held_pct;            /* NaN when n_held == 0 */
  double max_abs_err_held_pct;     /* NaN when n_held == 0 */
  gint64 max_err_held_row_id;      /* -1 when n_held == 0 */
  guint  n_held_family[RES_PUB_FAMILY_N];
  double mape_held_family_pct[RES_PUB_FAMILY_N];   /* NaN where n_held_family is 0 */
} ResPublishedSummary;

/* Rows that differ only in the number of micro-batches per step (the same model,
 * cluster preset and plan but for dp and the global batch: strong-scaling series such
 * as Llama 3 Table 4's 8K and 16K-GPU runs, or Narayanan et al.'s 175B on 384 / 768 /
 * 1,536 GPUs). Their step times are fitted by least squares to
 *     step = m x per_mb + fixed
 * (m micro-batches per step), once for the measured and once for the predicted times,
 * so that an error can be traced to the work that scales with the micro-batches
 * (compute, exposed TP/CP, pipeline sends) or to what does not (pipeline fill and drain,
 * exposed DP, optimizer). The fit assumes the fixed part is the same in every row of
 * the group; exposed DP communication, which grows with dp, breaks that a little. With
 * two rows the fit is exact. */
typedef struct {
  GArray *row_ids;                 /* gint64, in CSV order */
  GArray *micro_batches;           /* int, m of each row */
  double  measured_per_mb_s, measured_fixed_s;
  double  predicted_per_mb_s, predicted_fixed_s;
  double  per_mb_err_pct;          /* 100 (predicted - measured) / measured per_mb */
  /* the same fit of the predicted steps at each V of the rows' V sweeps (res_published_
   * case_v_sweep), where every row of the group has one over the same Vs; n_vs 0 else */
  int     n_vs;
  int     vs[RES_PUB_N_VS];
  double  predicted_per_mb_by_v_s[RES_PUB_N_VS], predicted_fixed_by_v_s[RES_PUB_N_VS];
} ResPublishedMbScaling;

typedef struct {
  char       *source;              /* the CSV's source */
  GPtrArray  *cases;               /* ResPublishedCase, in CSV order, filtered */
  ResPublishedSummary summary;
  GPtrArray  *mb_scaling;          /* ResPublishedMbScaling, groups of >= 2 predicted rows
                                      with >= 2 distinct m, ordered by first row */
} ResPublishedReport;

/* The micro-batch scaling groups of predicted cases (see ResPublishedMbScaling); the
 * array frees its elements. res_published_validate fills report->mb_scaling with it. */
GPtrArray          *res_published_mb_scaling (ResPublishedCase *const *cases, guint n_cases);

/* Summary over the predicted cases of an array (skipped ones are counted as such). */
void                res_published_summarize (ResPublishedCase *const *cases, guint n_cases,
                                             ResPublishedSummary *out);

/* Maps, predicts and summarizes every row of `csv` kept by `opts` (NULL: all). */
ResPublishedReport *res_published_validate (const ResCsv *csv,
                                            const ResPublishedOptions *opts);
void                res_published_report_free (ResPublishedReport *report);   /* NULL-safe */

/* The object of `tandem validate --json`:
 *   { "source", "rows": [{row_id, model, gpu_type, n_gpus, cluster, plan,
 *     measured_step_s, measured_source, predicted_step_s, err_pct, fits, flops_convention,
 *     published_mfu_pct, predicted_mfu_pct, mfu, predicted_hfu, moe}],
 *     "skipped": [{row_id, model, gpu_type, reason}],
 *     "summary": {n, mape_pct, max_abs_err_pct, max_err_row_id, skipped,
 *                 by_device: {h100: {n, mape_pct}, a100: {...}},
 *                 llama3_mfu: [{row_id, published_mfu_pct, predicted_mfu_palm_pct}],
 *                 moe: {rows, n, mape_pct, max_abs_err_pct, max_err_row_id},
 *                 held_out (only when the CSV has held-out rows): {rows, n, mape_pct,
 *                   max_abs_err_pct, max_err_row_id, by_device}},
 *     "mb_scaling": [{row_ids, micro_batches, measured_per_mb_s, measured_fixed_s,
 *                     predicted_per_mb_s, predicted_fixed_s, per_mb_err_pct,
 *                     by_v (rows with a V sweep): [{v, predicted_per_mb_s,
 *                     predicted_fixed_s}]}],
 *     "v_sweep": [{row_id, published_mfu_pct, convention, best_v (null: none fits),
 *                  by_v: [{v, step_s, mfu_pct, fits, peak_gib}]}] }
 * Unknown numbers are null. "Llama 3 rows" are the rows mapped to h100-24k. */
void   res_published_report_to_json (const ResPublishedReport *report, JsonBuilder *builder);

/* Stores the predicted rows as one 'validate' run (res_store_add_validation). `note`
 * may be NULL. Returns the run id, or -1 with error set. */
gint64 res_published_report_store (const ResPublishedReport *report, ResStore *store,
                                   const char *note, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ResCsv, res_csv_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ResPublishedCase, res_published_case_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ResPublishedReport, res_published_report_free)

/* `validate --explain ROW`: how each column of CSV row `row` was read into `c` (mapped,
 * and predicted when it could be), one line per column: the cell, then what it became;
 * the device's fitted knobs (and any at a bound of its fit), the stack, the measurement
 * and the prediction's parts. g_free the text. */
char *res_published_explain (const ResCsv *csv, guint row, const ResPublishedCase *c);

/* `validate --ranking`: within each group of predicted rows of one model, GPU type (the
 * device its gpu_type maps to), GPU count, global batch and sequence length, every pair of rows with different plans is
 * ordered as measured when the faster measured row is also predicted faster. */
typedef struct {
  guint      n_groups;             /* groups with >= 2 rows */
  guint      n_pairs, n_ordered;   /* pairs of different plans; ordered as measured */
  guint      n_pairs_wide, n_ordered_wide; /* pairs measured more than 5% apart */
  GPtrArray *misordered;           /* char *, one line per pair out of order */
} ResPublishedRanking;
void res_published_ranking       (const ResPublishedReport *report, ResPublishedRanking *out);
void res_published_ranking_clear (ResPublishedRanking *ranking);

G_END_DECLS
