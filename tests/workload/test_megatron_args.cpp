// Megatron-LM's argument names, as workload keys and as an imported command line, mean what
// Megatron does with them.
#include "simgpt/core/error.hpp"
#include "simgpt/simulate.hpp"
#include "simgpt/workload/import.hpp"
#include "simgpt/workload/workload.hpp"

#include <catch2/catch.hpp>

#include <fstream>

using namespace simgpt;

namespace {

std::string resolved(const std::string& yaml) { return workload_yaml(parse_workload(yaml, "w.yaml")); }

std::string refusal(const std::string& yaml) {
  try {
    parse_workload(yaml, "w.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string refusal_with(const std::string& yaml, const Overrides& overrides) {
  try {
    parse_workload(yaml, "w.yaml", overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The workload part of an imported file: its comment lines dropped.
std::string body(const std::string& imported) {
  std::string out;
  size_t start = 0;
  while (start < imported.size()) {
    const size_t end = imported.find('\n', start);
    const std::string line = imported.substr(start, end - start + 1);
    if (!line.starts_with("#"))
      out += line;
    start = end + 1;
  }
  return out;
}

} // namespace

TEST_CASE("Megatron-LM argument names as top-level keys set the workload keys they stand for") {
  const std::string ours = R"(model: {layers: 32, hidden: 4096, heads: 32, kv_heads: 8, seq_len: 8192, vocab: 128256,
         ffn_hidden: 14336, mlp: swiglu, norm: rmsnorm, position: rope, bias: false, tie_embeddings: false}
training: {global_batch: 128, micro_batch: 1, precision: bf16, recompute: selective}
parallelism: {dp: 4, tp: 2, pp: 1, sequence_parallel: true, zero: 1}
framework: megatron
)";
  const std::string megatron = R"(num_layers: 32
hidden_size: 4096
num_attention_heads: 32
group_query_attention: true
num_query_groups: 8
seq_length: 8192
vocab_size: 128256
make_vocab_size_divisible_by: 1
ffn_hidden_size: 14336
swiglu: true
normalization: RMSNorm
position_embedding_type: rope
disable_bias_linear: true
untie_embeddings_and_output_weights: true
global_batch_size: 128
micro_batch_size: 1
bf16: true
recompute_activations: true
tensor_model_parallel_size: 2
sequence_parallel: true
use_distributed_optimizer: true
parallelism: {dp: 4}
framework: megatron
)";
  CHECK(resolved(megatron) == resolved(ours));
}

TEST_CASE("Megatron's vocabulary padding and virtual pipeline stages") {
  const std::string base = "model: {hidden: 1024, heads: 16, seq_len: 1024}\ntraining: {global_batch: 8}\n"
                           "parallelism: {dp: 1}\n";
  // 50257 up to a multiple of 128 x tp 2 = 256: 50432 (megatron/training/tokenizer/tokenizer.py).
  const Workload padded = parse_workload(base + "num_layers: 24\nvocab_size: 50257\ntensor_model_parallel_size: 2\n"
                                                "pipeline_model_parallel_size: 4\n"
                                                "num_layers_per_virtual_pipeline_stage: 3\n",
                                         "w.yaml");
  CHECK(padded.model.vocab == 50432);
  CHECK(padded.parallelism.schedule == Schedule::interleaved);
  CHECK(padded.parallelism.chunks == 2); // 24 layers / (pp 4 x 3 layers a virtual stage)
  const Workload gpt2 = parse_workload(base + "num_layers: 24\ntokenizer_type: GPT2BPETokenizer\n"
                                              "tensor_model_parallel_size: 8\n",
                                       "w.yaml");
  CHECK(gpt2.model.vocab == 51200);
}

TEST_CASE("a Megatron key that contradicts a workload key, or a value Megatron would refuse, is refused") {
  const std::string base = "model: {layers: 24, hidden: 1024, heads: 16, seq_len: 1024, vocab: 50257}\n"
                           "training: {global_batch: 8}\n";
  CHECK_THAT(refusal(base + "num_layers: 12\n"), Catch::Contains("w.yaml: num_layers: sets model.layers to 12"));
  CHECK(refusal(base + "num_layers: 24\n").empty());
  CHECK_THAT(refusal("model: {layers: [1, 2], hidden: 64, heads: 2, seq_len: 8, vocab: 8}\ntraining: {global_batch: 1}\n"
                     "num_layers: 2\n"),
             Catch::Contains("sets model.layers, which the file gives as a list or mapping"));
  CHECK_THAT(refusal(base + "normalization: BatchNorm\n"), Catch::Contains("expected one of: LayerNorm, RMSNorm"));
  CHECK_THAT(refusal(base + "bf16: maybe\n"), Catch::Contains("expected true or false"));
  CHECK_THAT(refusal(base + "fp16: true\nbf16: true\n"), Catch::Contains("training.precision"));
  CHECK_THAT(refusal(base + "recompute_method: block\nrecompute_num_layers: 4\n"), Catch::Contains("every layer"));
  CHECK_THAT(refusal(base + "group_query_attention: true\n"), Catch::Contains("needs --num-query-groups"));
}

TEST_CASE("a check of a key a Megatron key set names the Megatron key as the file writes it") {
  const std::string base = "model: {layers: 24, hidden: 2048, heads: 16, seq_len: 2048, vocab: 50257}\n"
                           "training: {global_batch: 64}\n";
  CHECK(refusal(base + "tensor-model-parallel-size: 3\n") == "w.yaml: tensor-model-parallel-size: tp 3 does not divide heads 16");
  CHECK(refusal(base + "micro_batch_size: 0\n") == "w.yaml: micro_batch_size: 0 is out of range (expected an integer >= 1)");
  // A --set of the key is the value checked, and named as the key.
  CHECK_THAT(refusal_with(base + "tensor_model_parallel_size: 2\n", {{"parallelism.tp", "3"}}),
             Catch::StartsWith("w.yaml: parallelism.tp: tp 3 does not divide heads 16"));
  // Past a limit: still a limit.
  CHECK_THROWS_AS(parse_workload("model: {hidden: 2048, heads: 16, seq_len: 2048, vocab: 50257}\n"
                                 "training: {global_batch: 64}\nnum-layers: 2000\n",
                                 "w.yaml"),
                  LimitError);
}

TEST_CASE("Narayanan et al. 2021's GPT-3 175B command line imports as workloads/gpt3_175b.yaml") {
  // megatron's examples/gpt3/train_gpt3_175b_distributed.sh of the paper's time, with the paper's
  // split (1,024 GPUs, tp 8, pp 16) and the flags that do not change the step.
  const std::vector<std::string> words = {
      "torchrun", "--nproc_per_node", "8", "--nnodes", "128", "--node_rank", "0", "pretrain_gpt.py",
      "--tensor-model-parallel-size", "8", "--pipeline-model-parallel-size", "16", "--num-layers", "96",
      "--hidden-size", "12288", "--num-attention-heads", "96", "--seq-length", "2048",
      "--max-position-embeddings", "2048", "--micro-batch-size", "1", "--global-batch-size", "1536",
      "--train-iters", "500000", "--lr", "6.0e-5", "--vocab-file", "gpt2-vocab.json", "--merge-file",
      "gpt2-merges.txt", "--tokenizer-type", "GPT2BPETokenizer", "--fp16", "--checkpoint-activations"};
  const ImportedWorkload imported = import_megatron(words, std::nullopt);
  const DataPaths data = default_data_paths();
  const std::string hand = workload_yaml(load_workload(data.find("workloads/gpt3_175b.yaml")));
  CHECK(body(imported.yaml) == hand);
  CHECK_THAT(imported.yaml, Catch::Contains("--lr 6.0e-5"));
  CHECK_THAT(imported.yaml, Catch::Contains("--max-position-embeddings 2048"));
  // --gpus may repeat the launcher's count, not contradict it: the launcher starts the processes.
  CHECK_THAT(import_megatron(words, 1024).yaml, Catch::Contains("dp: 8"));
  CHECK_THROWS_WITH(import_megatron(words, 512),
                    Catch::Contains("--gpus: 512 contradicts the launcher's --nnodes 128 --nproc_per_node 8 (1024 GPUs)"));
}

TEST_CASE("a DeepSpeed config's batch sizes, ZeRO stage and precision merge with Megatron-DeepSpeed's arguments") {
  const std::string config = "test_megatron_args_ds.json";
  std::ofstream(config) << R"({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 2,
    "gradient_accumulation_steps": 8, "zero_optimization": {"stage": 1, "reduce_bucket_size": 5e8},
    "bf16": {"enabled": true}, "steps_per_print": 10})";
  const std::vector<std::string> words = {"--num-layers", "24", "--hidden-size", "2048", "--num-attention-heads", "16",
                                          "--seq-length", "2048", "--vocab-size", "50257", "--pipeline-model-parallel-size",
                                          "2", "--micro-batch-size", "2", "--checkpoint-activations", "--deepspeed"};
  const ImportedWorkload imported = import_megatron(words, std::nullopt, config);
  const Workload w = parse_workload(body(imported.yaml), "imported");
  CHECK(w.framework == "deepspeed");
  CHECK(w.parallelism.dp == 4); // 64 / (2 x 8)
  CHECK(w.parallelism.pp == 2);
  CHECK(w.parallelism.zero == 1);
  CHECK(w.training.precision == Precision::bf16);
  CHECK(w.training.recompute == Recompute::full);
  CHECK(w.training.global_batch == 64);
  CHECK_THAT(imported.yaml, Catch::Contains("zero_optimization.reduce_bucket_size"));
  // Megatron-DeepSpeed's micro-batch is the command line's; the config's is noted as superseded.
  std::vector<std::string> other = words;
  other[13] = "4";
  CHECK_THAT(import_megatron(other, 8, config).yaml,
             Catch::Contains("train_micro_batch_size_per_gpu 2 (the command line's 4 is used)"));
  // The precision must agree.
  std::vector<std::string> fp16 = words;
  fp16.push_back("--fp16");
  CHECK_THROWS_WITH(import_megatron(fp16, std::nullopt, config), Catch::Contains("training.precision"));
  // DeepSpeed's own check: train_batch_size = micro-batch x accumulation x data-parallel GPUs, here
  // 2 x 8 x 8 = 128, not 64.
  CHECK_THROWS_WITH(import_megatron(words, 16, config),
                    Catch::Contains("test_megatron_args_ds.json: train_batch_size: 64 is not "
                                    "train_micro_batch_size_per_gpu 2 x gradient_accumulation_steps 8 x 8 data-parallel"));
  std::remove(config.c_str());
}

TEST_CASE("an import that cannot say the job's GPUs, or an argument without its value, is refused") {
  CHECK_THROWS_WITH(import_megatron({"--num-layers", "2", "--hidden-size", "64", "--num-attention-heads", "2",
                                     "--seq-length", "8", "--vocab-size", "8"},
                                    std::nullopt),
                    Catch::Contains("--gpus N"));
  CHECK_THROWS_WITH(import_megatron({"--num-layers"}, 8), Catch::Contains("--num-layers: is given without its value"));
}

TEST_CASE("Megatron-LM's mixture-of-experts arguments set the workload's MoE keys") {
  const std::string ours = R"(model: {layers: 4, hidden: 1024, heads: 8, seq_len: 1024, vocab: 32000, experts: 16,
         top_k: 4, moe_ffn_hidden: 512, shared_expert_ffn_hidden: 1024, capacity_factor: 1.25}
training: {global_batch: 64}
parallelism: {dp: 8, ep: 4}
)";
  const std::string megatron = R"(model: {layers: 4, hidden: 1024, heads: 8, seq_len: 1024, vocab: 32000}
num_experts: 16
moe_router_topk: 4
moe_ffn_hidden_size: 512
moe_shared_expert_intermediate_size: 1024
moe_expert_capacity_factor: 1.25
expert_model_parallel_size: 4
training: {global_batch: 64}
parallelism: {dp: 8}
)";
  CHECK(resolved(megatron) == resolved(ours));
  CHECK_THAT(resolved(ours), Catch::Contains("capacity_factor: 1.25") && Catch::Contains("ep: 4") &&
                                 Catch::Contains("moe_ffn_hidden: 512"));
  // Megatron's check: "Number of experts should be a multiple of expert model parallel_size."
  CHECK_THAT(refusal("model: {layers: 4, hidden: 1024, heads: 8, seq_len: 1024, vocab: 32000}\nnum_experts: 6\n"
                     "expert_model_parallel_size: 4\ntraining: {global_batch: 64}\nparallelism: {dp: 8}\n"),
             Catch::Contains("w.yaml: expert_model_parallel_size: ") && Catch::Contains("does not divide the 6 experts"));
}

TEST_CASE("Megatron-LM's multi-latent attention arguments set the workload's MLA keys") {
  const std::string ours = R"(model: {layers: 4, hidden: 1024, heads: 8, seq_len: 1024, vocab: 32000,
         latent_attention: true, q_lora_rank: 384, kv_lora_rank: 128, qk_head_dim: 64, qk_pos_emb_head_dim: 32,
         v_head_dim: 64}
training: {global_batch: 64}
)";
  const std::string megatron = R"(model: {layers: 4, hidden: 1024, heads: 8, seq_len: 1024, vocab: 32000}
multi_latent_attention: true
q_lora_rank: 384
kv_lora_rank: 128
qk_head_dim: 64
qk_pos_emb_head_dim: 32
v_head_dim: 64
training: {global_batch: 64}
)";
  CHECK(resolved(megatron) == resolved(ours));
  CHECK_THAT(resolved(ours), Catch::Contains("latent_attention: true") && Catch::Contains("q_lora_rank: 384") &&
                                 Catch::Contains("qk_pos_emb_head_dim: 32"));
  // Megatron's own defaults where an argument is not given (megatron/training/arguments.py).
  CHECK_THAT(resolved("model: {layers: 4, hidden: 1024, heads: 8, seq_len: 1024, vocab: 32000}\n"
                      "multi_latent_attention: true\ntraining: {global_batch: 64}\n"),
             Catch::Contains("q_lora_rank: 0") && Catch::Contains("kv_lora_rank: 32") &&
                 Catch::Contains("qk_head_dim: 128") && Catch::Contains("v_head_dim: 128"));
  // Without --multi-latent-attention Megatron does not use them: refused in a workload, listed
  // as not modelled by an import.
  CHECK_THAT(refusal("model: {layers: 4, hidden: 1024, heads: 8, seq_len: 1024, vocab: 32000}\nkv_lora_rank: 128\n"
                     "training: {global_batch: 64}\n"),
             Catch::Contains("kv_lora_rank: Megatron uses it only with --multi-latent-attention"));
  const ImportedWorkload imported =
      import_megatron({"--num-layers", "4", "--hidden-size", "1024", "--num-attention-heads", "8", "--seq-length",
                       "1024", "--vocab-size", "32000", "--micro-batch-size", "1", "--global-batch-size", "64",
                       "--multi-latent-attention", "--q-lora-rank", "384", "--kv-lora-rank", "128", "--qk-layernorm"},
                      8);
  const Workload w = parse_workload(body(imported.yaml), "imported");
  CHECK(w.model.latent_attention);
  CHECK(w.model.q_lora_rank == 384);
  CHECK(w.model.kv_lora_rank == 128);
  CHECK(w.model.v_head_dim == 128);
}

TEST_CASE("Megatron-LM's --fp8-format and --fp8-recipe set fp8 training") {
  const std::string base = "model: {layers: 4, hidden: 1024, heads: 8, seq_len: 1024, vocab: 32000}\n"
                           "training: {global_batch: 64, precision: bf16}\n";
  CHECK(resolved(base + "fp8_format: hybrid\nfp8_recipe: tensorwise\n") ==
        resolved("model: {layers: 4, hidden: 1024, heads: 8, seq_len: 1024, vocab: 32000}\n"
                 "training: {global_batch: 64, precision: bf16, fp8: hybrid, fp8_recipe: tensorwise}\n"));
  CHECK_THAT(resolved(base + "fp8_format: e4m3\n"), Catch::Contains("fp8: \"e4m3\"") && Catch::Contains("fp8_recipe: \"delayed\""));
  // Without fp8 the resolved workload is written as before: no fp8 keys.
  CHECK_THAT(resolved(base), !Catch::Contains("fp8"));
  // Megatron's other recipes (blockwise, custom) scale in blocks simgpt does not model.
  CHECK_THAT(refusal(base + "fp8_format: hybrid\nfp8_recipe: blockwise\n"),
             Catch::Contains("w.yaml: fp8_recipe: ") && Catch::Contains("expected one of: delayed, mxfp8, nvfp4, tensorwise"));
  CHECK(refusal(base + "fp8_format: hybrid\nfp8_recipe: mxfp8\n").empty());
  const ImportedWorkload imported =
      import_megatron({"torchrun", "--nproc-per-node", "8", "pretrain_gpt.py", "--num-layers", "4", "--hidden-size",
                       "1024", "--num-attention-heads", "8", "--seq-length", "1024", "--vocab-size", "32000", "--bf16",
                       "--fp8-format", "hybrid", "--fp8-recipe", "delayed", "--fp8-param-gather"},
                      std::nullopt);
  CHECK_THAT(body(imported.yaml), Catch::Contains("fp8: \"hybrid\"") && Catch::Contains("fp8_recipe: \"delayed\""));
  // --fp8-param-gather: the weights themselves in fp8, gathered at their byte.
  CHECK_THAT(body(imported.yaml), Catch::Contains("fp8_param_gather: true"));
  CHECK_THAT(imported.yaml, !Catch::Contains("--fp8-param-gather"));
  CHECK(parse_workload(base + "fp8_format: hybrid\nfp8_recipe: tensorwise\nfp8_param_gather: true\n", "w.yaml")
            .training.fp8_param_gather);
  // fp8 parameters need fp8 training, and NVFP4 has a flag of its own (--fp4-param-gather).
  CHECK_THAT(refusal(base + "fp8_param_gather: true\n"),
             Catch::Contains("w.yaml: fp8_param_gather: ") && Catch::Contains("applies only with fp8 training"));
  CHECK_THAT(refusal(base + "fp4_format: e2m1\nfp8_param_gather: true\n"),
             Catch::Contains("w.yaml: fp8_param_gather: ") && Catch::Contains("not nvfp4"));
}

TEST_CASE("Megatron-FSDP's sharding strategy sets the ZeRO stage") {
  const std::string base = "model: {layers: 4, hidden: 1024, heads: 16, seq_len: 1024, vocab: 50257}\n"
                           "training: {global_batch: 8}\nparallelism: {dp: 4}\n";
  // optim_grads_params shards the weights too: ZeRO-3, over --use-distributed-optimizer's 1
  // (Megatron-FSDP v1 runs with the distributed optimizer).
  CHECK(parse_workload(base + "use_megatron_fsdp: true\ndata_parallel_sharding_strategy: optim_grads_params\n", "w.yaml")
            .parallelism.zero == 3);
  CHECK(parse_workload(base + "use_distributed_optimizer: true\nuse_megatron_fsdp: true\n"
                              "data_parallel_sharding_strategy: optim_grads_params\n",
                       "w.yaml")
            .parallelism.zero == 3);
  CHECK(parse_workload(base + "use_megatron_fsdp: true\ndata_parallel_sharding_strategy: optim\n", "w.yaml")
            .parallelism.zero == 1);
  // Megatron's default strategy, no_shard, and optim_grads are listed as not modelled.
  const ImportedWorkload imported =
      import_megatron({"torchrun", "--nproc-per-node", "4", "pretrain_gpt.py", "--num-layers", "4", "--hidden-size",
                       "1024", "--num-attention-heads", "16", "--seq-length", "1024", "--vocab-size", "50257",
                       "--global-batch-size", "8", "--use-megatron-fsdp"},
                      std::nullopt);
  CHECK_THAT(imported.yaml, Catch::Contains("use_megatron_fsdp with data_parallel_sharding_strategy no_shard"));
  CHECK_THAT(body(imported.yaml), Catch::Contains("zero: 0"));
}

TEST_CASE("Megatron's gradient-reduce and param-gather overlap flags set what simgpt models") {
  const std::string base = "model: {layers: 4, hidden: 1024, heads: 16, seq_len: 1024, vocab: 50257}\n"
                           "training: {global_batch: 8}\nparallelism: {dp: 4}\n";
  const Workload w = parse_workload(base + "use_distributed_optimizer: true\noverlap_grad_reduce: true\n"
                                           "overlap_param_gather: true\n",
                                    "w.yaml");
  CHECK(w.parallelism.zero == 1);
  CHECK(w.parallelism.overlap_param_gather);
  REQUIRE(w.framework_options.contains("collectives.dp_overlap"));
  CHECK(w.framework_options.at("collectives.dp_overlap") == "true");
  // Megatron-LM: --overlap-param-gather only with the distributed optimizer.
  CHECK_THAT(refusal(base + "overlap_param_gather: true\n"),
             Catch::Contains("w.yaml: overlap_param_gather: ") && Catch::Contains("needs parallelism.zero 1 or 2"));
  // --align-param-gather: overlap_param_gather's gathers issued a chunk at a time; only with it.
  CHECK(parse_workload(base + "use_distributed_optimizer: true\noverlap_param_gather: true\nalign_param_gather: true\n",
                       "w.yaml")
            .parallelism.align_param_gather);
  CHECK_THAT(refusal(base + "use_distributed_optimizer: true\nalign_param_gather: true\n"),
             Catch::Contains("w.yaml: align_param_gather: ") &&
                 Catch::Contains("needs parallelism.overlap_param_gather true"));
}

TEST_CASE("Megatron-core's recompute modules and token dispatcher") {
  const std::string base = "model: {layers: 4, hidden: 1024, heads: 16, seq_len: 1024, vocab: 50257}\n"
                           "training: {global_batch: 8}\nparallelism: {dp: 1}\n";
  const Workload w = parse_workload(base + "recompute_granularity: selective\nrecompute_modules: core_attn mlp\n", "w.yaml");
  CHECK(w.training.recomputes(RecomputeModule::core_attn));
  CHECK(w.training.recomputes(RecomputeModule::mlp));
  CHECK_FALSE(w.training.recomputes(RecomputeModule::layernorm));
  CHECK_THAT(refusal(base + "recompute_granularity: selective\nrecompute_modules: shared_experts\n"),
             Catch::Contains("'shared_experts' is a Megatron-core recompute module simgpt does not model"));
  // The whole MoE layer's module needs one.
  CHECK_THAT(refusal(base + "recompute_granularity: selective\nrecompute_modules: moe\n"),
             Catch::Contains("moe needs a mixture-of-experts model"));
  CHECK_THAT(refusal(base + "recompute_granularity: full\nrecompute_modules: mlp\n"),
             Catch::Contains("applies only with training.recompute selective"));
  CHECK_THAT(refusal(base + "moe_token_dispatcher_type: allgather\n"),
             Catch::Contains("moe_token_dispatcher_type allgather: simgpt runs the alltoall dispatcher"));
  // flex with its backend (deepep unless --moe-flex-dispatcher-backend says), and the
  // expert-parallel overlap (--overlap-moe-expert-parallel-comm).
  const std::string moe = "model: {layers: 4, hidden: 1024, heads: 16, seq_len: 1024, vocab: 50257}\n"
                          "training: {global_batch: 8}\nparallelism: {dp: 4}\nnum_experts: 8\nmoe_router_topk: 2\n"
                          "expert_model_parallel_size: 4\nmoe_token_dispatcher_type: flex\n";
  CHECK(parse_workload(moe, "w.yaml").parallelism.moe_dispatcher == MoeDispatcher::deepep);
  const Workload hybrid = parse_workload(moe + "moe_flex_dispatcher_backend: hybridep\n"
                                               "overlap_moe_expert_parallel_comm: true\ndelay_wgrad_compute: true\n",
                                         "w.yaml");
  CHECK(hybrid.parallelism.moe_dispatcher == MoeDispatcher::hybridep);
  CHECK(hybrid.parallelism.moe_a2a_overlap);
  CHECK_THAT(refusal(moe + "moe_flex_dispatcher_backend: ncclep\n"),
             Catch::Contains("moe_flex_dispatcher_backend ncclep: simgpt runs the alltoall dispatcher"));
  CHECK_THAT(refusal(moe + "overlap_moe_expert_parallel_comm: true\n"),
             Catch::Contains("without delay_wgrad_compute"));
  // --moe-layer-freq: K dense layers first, then MoE ones, written whole; anything else is listed.
  CHECK(parse_workload(moe + "moe_layer_freq: \"([0]*1+[1]*3)\"\nnum_layers: 4\n", "w.yaml").model.dense_layers == 1);
  CHECK_THAT(refusal(moe + "moe_layer_freq: \"([0]*1+[1]*3)*2\"\nnum_layers: 4\n"),
             Catch::Contains("moe_layer_freq ([0]*1+[1]*3)*2"));
  const ImportedWorkload imported =
      import_megatron({"torchrun", "--nproc-per-node", "8", "pretrain_gpt.py", "--num-layers", "4", "--hidden-size",
                       "1024", "--num-attention-heads", "8", "--seq-length", "1024", "--vocab-size", "32000", "--bf16",
                       "--use-distributed-optimizer", "--overlap-grad-reduce", "--overlap-param-gather",
                       "--recompute-granularity", "selective", "--recompute-modules", "core_attn", "mlp",
                       "--moe-token-dispatcher-type", "alltoall", "--global-batch-size", "64"},
                      std::nullopt);
  CHECK_THAT(body(imported.yaml), Catch::Contains("recompute_modules: \"core_attn,mlp\"") &&
                                      Catch::Contains("overlap_param_gather: true") &&
                                      Catch::Contains("collectives.dp_overlap: \"true\""));
  CHECK(imported.ignored.empty());
}

TEST_CASE("a DeepSeek-V3 and a Llama 3 70B command line as Megatron-Bridge's recipes run them import whole") {
  // DeepSeek-V3 (Megatron-Bridge's deepseek_v3 recipe and its GB200 preset: the flex dispatcher's
  // hybridep backend, the expert-parallel overlap, MXFP8, latent attention's and the experts'
  // recompute modules, one multi-token prediction layer), pp 1 for a plain split of its 61 layers;
  // --kv-channels, which Megatron's own DeepSeek-V3 configurations pass, means nothing under MLA.
  const ImportedWorkload deepseek = import_megatron(
      {"torchrun", "--nproc-per-node", "4", "--nnodes", "64", "pretrain_gpt.py", "--num-layers", "61",
       "--hidden-size", "7168", "--ffn-hidden-size", "18432", "--num-attention-heads", "128",
       "--multi-latent-attention", "--q-lora-rank", "1536", "--kv-lora-rank", "512", "--qk-head-dim", "128",
       "--qk-pos-emb-head-dim", "64", "--v-head-dim", "128", "--qk-layernorm", "--normalization", "RMSNorm",
       "--swiglu", "--position-embedding-type", "rope", "--untie-embeddings-and-output-weights",
       "--disable-bias-linear", "--num-experts", "256", "--moe-router-topk", "8", "--moe-ffn-hidden-size", "2048",
       "--moe-shared-expert-intermediate-size", "2048", "--moe-layer-freq", "([0]*3+[1]*58)", "--moe-grouped-gemm",
       "--kv-channels", "128",
       "--moe-permute-fusion", "--moe-router-dtype", "fp32", "--moe-token-dispatcher-type", "flex",
       "--moe-flex-dispatcher-backend", "hybridep", "--overlap-moe-expert-parallel-comm", "--delay-wgrad-compute",
       "--mtp-num-layers", "1", "--recompute-granularity", "selective", "--recompute-modules", "mla_up_proj",
       "moe_act", "--bf16", "--fp8-format", "e4m3", "--fp8-recipe", "mxfp8", "--use-distributed-optimizer",
       "--overlap-grad-reduce", "--overlap-param-gather", "--tensor-model-parallel-size", "1",
       "--expert-model-parallel-size", "64", "--expert-tensor-parallel-size", "1", "--seq-length", "4096",
       "--global-batch-size", "2048", "--micro-batch-size", "1", "--vocab-size", "129280",
       "--cuda-graph-impl", "transformer_engine", "--cuda-graph-scope", "attn", "moe_router", "moe_preprocess",
       "--cross-entropy-loss-fusion", "--cross-entropy-fusion-impl", "te"},
      std::nullopt);
  CHECK(deepseek.ignored.empty());
  const std::string d = body(deepseek.yaml);
  CHECK_THAT(d, Catch::Contains("moe_dispatcher: \"hybridep\"") && Catch::Contains("moe_a2a_overlap: true") &&
                    Catch::Contains("dense_layers: 3") && Catch::Contains("fp8_recipe: \"mxfp8\"") &&
                    Catch::Contains("recompute_modules: \"moe_act,mla_up_proj\"") &&
                    Catch::Contains("mtp_layers: 1") &&
                    Catch::Contains("compute.cuda_graphs: \"[attn, moe_router, moe_preprocess]\"") &&
                    Catch::Contains("compute.te_cross_entropy: \"true\""));
  CHECK_THAT(d, !Catch::Contains("\n  head_dim:"));
  // Llama 3 70B (llama3_70b_pretrain_config with its H100 preset: tp 4, pp 4, vp 5, TP communication
  // overlap, fp8 current scaling).
  const auto llama3_70b = [](int nodes, int per_node, std::vector<std::string> flags) {
    std::vector<std::string> words{"torchrun", "--nproc-per-node", std::to_string(per_node), "--nnodes",
                                   std::to_string(nodes), "pretrain_gpt.py", "--num-layers", "80",
                                   "--hidden-size", "8192", "--ffn-hidden-size", "28672", "--num-attention-heads", "64",
                                   "--group-query-attention", "--num-query-groups", "8", "--normalization", "RMSNorm",
                                   "--swiglu", "--position-embedding-type", "rope",
                                   "--untie-embeddings-and-output-weights", "--disable-bias-linear", "--bf16",
                                   "--fp8-format", "hybrid", "--fp8-recipe", "tensorwise", "--use-distributed-optimizer",
                                   "--overlap-grad-reduce", "--overlap-param-gather", "--seq-length", "8192",
                                   "--vocab-size", "128256"};
    words.insert(words.end(), flags.begin(), flags.end());
    return import_megatron(words, std::nullopt);
  };
  const ImportedWorkload llama =
      llama3_70b(8, 8, {"--tp-comm-overlap", "--sequence-parallel", "--tensor-model-parallel-size", "4",
                        "--pipeline-model-parallel-size", "4", "--num-layers-per-virtual-pipeline-stage", "4",
                        "--recompute-granularity", "selective", "--recompute-modules", "core_attn",
                        "--global-batch-size", "128", "--micro-batch-size", "1"});
  CHECK(llama.ignored.empty());
  CHECK_THAT(body(llama.yaml), Catch::Contains("tp_comm_overlap: true") && Catch::Contains("fp8_recipe: \"tensorwise\""));
  // Its GB200 preset (LLAMA3_70B_PRETRAIN_CONFIG_GB200_FP8_CS_V1): Megatron-FSDP over all 64 GPUs with
  // the activations of 40 layers offloaded (scripts/performance/utils/overrides.py: cpu_offloading,
  // cpu_offloading_weights false).
  const ImportedWorkload fsdp =
      llama3_70b(16, 4, {"--fp8-param-gather", "--align-param-gather", "--use-megatron-fsdp", "--data-parallel-sharding-strategy",
                         "optim_grads_params", "--cpu-offloading", "--cpu-offloading-num-layers", "40",
                         "--tensor-model-parallel-size", "1", "--pipeline-model-parallel-size", "1",
                         "--global-batch-size", "256", "--micro-batch-size", "2"});
  CHECK(fsdp.ignored.empty());
  CHECK_THAT(body(fsdp.yaml), Catch::Contains("zero: 3") && Catch::Contains("cpu_offload_layers: 40"));
}

TEST_CASE("Megatron-core's CUDA graph flags set the profile's captured scopes") {
  const auto graphs = [](std::vector<std::string> flags) {
    std::vector<std::string> words{"pretrain_gpt.py", "--num-layers", "4", "--hidden-size", "1024",
                                   "--num-attention-heads", "16", "--seq-length", "1024", "--vocab-size", "32000",
                                   "--micro-batch-size", "1", "--global-batch-size", "8", "--bf16"};
    words.insert(words.end(), flags.begin(), flags.end());
    const std::string yaml = body(import_megatron(words, 8).yaml);
    const auto at = yaml.find("compute.cuda_graphs: ");
    return at == std::string::npos ? std::string("none") : yaml.substr(at + 21, yaml.find('\n', at) - at - 21);
  };
  CHECK(graphs({}) == "none");
  CHECK(graphs({"--enable-cuda-graph"}) == "\"layers\"");
  CHECK(graphs({"--cuda-graph-impl", "local", "--cuda-graph-scope", "full"}) == "\"layers\"");
  CHECK(graphs({"--cuda-graph-impl", "local", "--cuda-graph-scope", "full_iteration"}) == "\"iteration\"");
  CHECK(graphs({"--cuda-graph-impl", "full_iteration"}) == "\"iteration\"");
  CHECK(graphs({"--external-cuda-graph", "--cuda-graph-scope", "attn", "mamba"}) == "\"[attn, mamba]\"");
  CHECK(graphs({"--cuda-graph-impl", "transformer_engine", "--cuda-graph-modules", "attn", "moe_router"}) ==
        "\"[attn, moe_router]\"");
  CHECK(graphs({"--cuda-graph-impl", "none", "--cuda-graph-scope", "attn"}) == "none");
  const auto refusal = [&](std::vector<std::string> flags) -> std::string {
    try {
      graphs(std::move(flags));
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  CHECK_THAT(refusal({"--cuda-graph-impl", "te"}),
             Catch::Contains("--cuda-graph-impl") && Catch::Contains("transformer_engine, full_iteration"));
  CHECK_THAT(refusal({"--external-cuda-graph", "--cuda-graph-scope", "attn", "router"}),
             Catch::Contains("--cuda-graph-scope") && Catch::Contains("'router'"));
}

TEST_CASE("Megatron's pipeline layout flag sets the layers of each pipeline stage, and VP from their count") {
  const auto import_layout = [](const std::string& pp, const std::string& layout, const std::string& layers,
                                const std::string& mtp) {
    return import_megatron({"pretrain_gpt.py", "--num-layers", layers, "--hidden-size", "1024", "--num-attention-heads",
                            "16", "--seq-length", "1024", "--vocab-size", "1000", "--micro-batch-size", "1",
                            "--global-batch-size", "64", "--pipeline-model-parallel-size", pp, "--mtp-num-layers", mtp,
                            "--pipeline-model-parallel-layout", layout},
                           64);
  };
  // Megatron-Bridge's DeepSeek-V3 layout for pp 16 (set_deepseek_v3_pipeline_model_parallel_layout):
  // the embedding and 4 layers, 14 stages of 4, then 1 layer, the MTP layer and the loss.
  const std::string pp16 = body(import_layout("16", "Et*4|(t*4|)*14tmL", "61", "1").yaml);
  CHECK_THAT(pp16, Catch::Contains("partition: \"4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,1\"") &&
                       Catch::Contains("schedule: \"1f1b\""));
  // The same 16 stages over pp 8: VP 2, the interleaved schedule, stages in model order.
  const std::string pp8 = body(import_layout("8", "Et*4|(t*4|)*14tmL", "61", "1").yaml);
  CHECK_THAT(pp8, Catch::Contains("schedule: \"interleaved\"") && Catch::Contains("chunks: 2") &&
                      Catch::Contains("partition: \"4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,1\""));
  // H100's: the embedding and 1 layer, 30 stages of 2, the MTP layer and the loss alone; commas
  // are cosmetic.
  const std::string h100 = body(import_layout("8", "Et|(tt|)*30,mL", "61", "1").yaml);
  CHECK_THAT(h100, Catch::Contains("chunks: 4") && Catch::Contains("partition: \"1,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,"
                                                                    "2,2,2,2,2,2,2,2,2,2,2,2,2,0\""));
  const auto refused = [&](const std::string& pp, const std::string& layout, const std::string& layers,
                           const std::string& mtp) {
    try {
      import_layout(pp, layout, layers, mtp);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(refused("16", "Et*4|(t*4|)*14tmL", "60", "1"), Catch::Contains("holds 61 decoder layers (t) but --num-layers is 60"));
  CHECK_THAT(refused("16", "Et*4|(t*4|)*14tmL", "61", "0"), Catch::Contains("holds 1 MTP layers (m) but --mtp-num-layers is 0"));
  CHECK_THAT(refused("5", "Et*4|(t*4|)*14tmL", "61", "1"), Catch::Contains("has 16 stages, not a multiple of --pipeline-model-parallel-size 5"));
  CHECK_THAT(refused("2", "t*4E|t*4L", "8", "0"), Catch::Contains("must begin with the embedding (E) and end with the loss (L)"));
  CHECK_THAT(refused("2", "Et*4E|t*4L", "8", "0"), Catch::Contains("the embedding (E) must come once, in the first stage"));
  CHECK_THAT(refused("2", "Et*4|x*4L", "8", "0"), Catch::Contains("'x' is not a layer Megatron knows"));
  CHECK_THAT(refused("2", "Et*4|(t*4L", "8", "0"), Catch::Contains("a group needs its closing ')' and a count"));
  CHECK_THAT(refused("2", "Et*|t*4L", "8", "0"), Catch::Contains("'*' needs a count after it"));
  CHECK_THAT(refused("2", "Et*4|t*99999999999L", "8", "0"), Catch::Contains("unrolls to more than"));
  CHECK(refused("2", "Et*4|t*4L", "8", "0").empty()); // a valid layout is taken
}

TEST_CASE("a Nemotron 3 Nano command line imports as a hybrid model") {
  // Megatron-Bridge's Nemotron 3 Nano (v0.6.0 recipes/nemotronh/h100/nemotron_3_nano.py) as
  // Megatron-LM's arguments: the hybrid pattern, the Mamba-2 widths, squared ReLU, no positions.
  const ImportedWorkload nano = import_megatron(
      {"torchrun", "--nproc-per-node", "8", "--nnodes", "1", "pretrain_mamba.py", "--num-layers", "52",
       "--hidden-size", "2688", "--num-attention-heads", "32", "--group-query-attention", "--num-query-groups", "2",
       "--kv-channels", "128", "--ffn-hidden-size", "1856", "--squared-relu", "--normalization", "RMSNorm",
       "--position-embedding-type", "none", "--disable-bias-linear", "--untie-embeddings-and-output-weights",
       "--is-hybrid-model", "--hybrid-override-pattern", "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
       "--mamba-num-heads", "64", "--mamba-head-dim", "64", "--mamba-state-dim", "128", "--mamba-num-groups", "8",
       "--num-experts", "128", "--moe-router-topk", "6", "--moe-ffn-hidden-size", "1856",
       "--moe-shared-expert-intermediate-size", "3712", "--expert-model-parallel-size", "8", "--seq-length", "8192",
       "--vocab-size", "131072", "--micro-batch-size", "2", "--global-batch-size", "512", "--bf16"},
      std::nullopt);
  CHECK(nano.ignored.empty());
  const Workload w = parse_workload(nano.yaml, "nano.yaml");
  CHECK(w.model.hybrid_pattern.size() == 52);
  CHECK(w.model.mamba_heads == 64);
  CHECK(w.model.mlp == Mlp::squared_relu);
  CHECK(w.model.position == Position::none);
  CHECK(w.model.moe_layers() == 23);
  // The newer spelling and a latent MoE.
  CHECK(parse_workload("model: {hidden: 4096, heads: 32, seq_len: 8192, vocab: 131072}\ntraining: {global_batch: 8}\n"
                       "hybrid_layer_pattern: \"M*E\"\nnum_experts: 8\nmoe_latent_size: 1024\n",
                       "w.yaml")
            .model.moe_latent == 1024);
}

TEST_CASE("Megatron's CPU offloading flags set the layers whose activations go to the host") {
  const auto imported = [](std::vector<std::string> flags) {
    std::vector<std::string> words{"pretrain_gpt.py", "--num-layers", "8", "--hidden-size", "1024",
                                   "--num-attention-heads", "16", "--seq-length", "1024", "--vocab-size", "32000",
                                   "--micro-batch-size", "1", "--global-batch-size", "8", "--bf16"};
    words.insert(words.end(), flags.begin(), flags.end());
    return import_megatron(words, 8);
  };
  const auto offloaded = [&](std::vector<std::string> flags) {
    const std::string yaml = body(imported(std::move(flags)).yaml);
    const auto at = yaml.find("cpu_offload_layers: ");
    return at == std::string::npos ? std::string("none") : yaml.substr(at + 20, yaml.find('\n', at) - at - 20);
  };
  CHECK(offloaded({}) == "none");
  // arguments.py turns cpu_offloading on for a layer count above 0.
  CHECK(offloaded({"--cpu-offloading-num-layers", "3"}) == "3");
  CHECK(offloaded({"--cpu-offloading", "--cpu-offloading-num-layers", "3"}) == "3");
  CHECK(offloaded({"--cpu-offloading", "--cpu-offloading-num-layers", "0"}) == "none");
  CHECK(offloaded({"--cpu-offloading-num-layers", "3", "--no-cpu-offloading-activations"}) == "none");
  const std::string weights = imported({"--cpu-offloading-num-layers", "3", "--cpu-offloading-weights"}).yaml;
  CHECK_THAT(weights, Catch::Contains("cpu_offloading_weights: simgpt offloads activations only"));
  // What Megatron-Core refuses (transformer_config.py) is refused here too.
  CHECK_THAT(refusal("model: {layers: 8, hidden: 1024, heads: 16, seq_len: 1024, vocab: 32000}\ntraining: {global_batch: 8, cpu_offload_layers: 8}\n"),
             Catch::Contains("training.cpu_offload_layers") && Catch::Contains("fewer than the model's 8 layers"));
  CHECK_THAT(refusal("model: {layers: 8, hidden: 1024, heads: 16, seq_len: 1024, vocab: 32000}\ntraining: {global_batch: 8, cpu_offload_layers: 2}\n"
                     "parallelism: {pp: 2}\n"),
             Catch::Contains("training.cpu_offload_layers") && Catch::Contains("parallelism.pp 1"));
  CHECK_THAT(refusal("model: {layers: 8, hidden: 1024, heads: 16, seq_len: 1024, vocab: 32000}\n"
                     "training: {global_batch: 8, cpu_offload_layers: 2}\nparallelism: {schedule: interleaved, chunks: 2}\n"),
             Catch::Contains("training.cpu_offload_layers") && Catch::Contains("chunks 1"));
  CHECK_THAT(refusal("model: {layers: 8, hidden: 1024, heads: 16, seq_len: 1024, vocab: 32000}\n"
                     "training: {global_batch: 8, cpu_offload_layers: 2, recompute: full}\n"),
             Catch::Contains("training.cpu_offload_layers") && Catch::Contains("recompute none"));
}

TEST_CASE("Megatron's cross-entropy fusion flags set TransformerEngine's fused loss, and only with te") {
  const auto imported = [](std::vector<std::string> flags) {
    std::vector<std::string> words{"torchrun", "--nproc-per-node", "8", "pretrain_gpt.py", "--num-layers", "2",
                                   "--hidden-size", "1024", "--num-attention-heads", "16", "--seq-length", "1024",
                                   "--micro-batch-size", "1", "--global-batch-size", "8", "--vocab-size", "32000", "--bf16"};
    words.insert(words.end(), flags.begin(), flags.end());
    return import_megatron(words, std::nullopt);
  };
  const ImportedWorkload te = imported({"--cross-entropy-loss-fusion", "--cross-entropy-fusion-impl", "te"});
  CHECK(te.ignored.empty());
  CHECK_THAT(body(te.yaml), Catch::Contains("compute.te_cross_entropy: \"true\""));
  // The native fused loss, and te without the fusion flag (Megatron then runs the unfused loss):
  // the profile's own loss, nothing set and nothing left out.
  for (const auto& flags : std::vector<std::vector<std::string>>{
           {"--cross-entropy-loss-fusion", "--cross-entropy-fusion-impl", "native"},
           {"--cross-entropy-fusion-impl", "te"},
           {"--cross-entropy-loss-fusion"}}) {
    const ImportedWorkload other = imported(flags);
    CHECK(other.ignored.empty());
    CHECK_THAT(body(other.yaml), !Catch::Contains("te_cross_entropy"));
  }
  CHECK_THROWS_WITH(imported({"--cross-entropy-fusion-impl", "triton"}),
                    Catch::Contains("--cross-entropy-fusion-impl") && Catch::Contains("native, te"));
}
