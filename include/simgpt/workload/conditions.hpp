// What is wrong with the cluster while a job runs (workload section `conditions`): GPUs slower
// than their datasheet (throttled, a bad neighbour on the host, a flaky HBM stack), a seeded random
// draw of such GPUs for Monte Carlo studies, and links slower, longer or down. Every key is one
// scalar, so that `--set` and a sweep's axis set it as they set any other:
//
//   conditions:
//     gpu_slowdown: "17:1.2, 40-47:1.1"   # GPU (the platform's gpu-N) or range : factor
//     node_slowdown: "3:1.25"             # every GPU of server 3 (the hosts' `node` property)
//     random_fraction: 0.01               # a share of the job's GPUs, drawn with `seed`
//     random_slowdown: "1.05-1.3"         # each drawn GPU's factor: fixed, or uniform in a range
//     seed: 7
//     link_bandwidth: "nic-12:0.5"        # link (as the platform names it) : factor of its rate
//     link_latency: "uplink-0:20us"       # link : latency added
//     links_down: "nic-13"                # links out of service
//
// A factor of 1.2 makes every kernel of the GPU take 1.2 times as long. ByteDance's study of its
// training cluster ("Understanding Stragglers in Large Model Training Using What-if Analysis",
// arXiv 2505.05713) finds such slow workers from many causes; this says which and by how much.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace simgpt {

// GPUs (or nodes) first..last, each `factor` times slower.
struct SlowdownRange {
  int64_t first = 0, last = 0;
  double factor = 1;
};

struct LinkCondition {
  std::string link;            // the link's id in the platform (a split-duplex link: both directions)
  double bandwidth_factor = 1; // its bandwidth times this
  double latency_added_s = 0;  // its latency plus this
  bool down = false;           // out of service: its traffic re-routed, or the job refused
};

struct Conditions {
  std::vector<SlowdownRange> gpus, nodes;
  double random_fraction = 0;                   // share of the job's GPUs drawn (at least one when > 0)
  bool random_fraction_given = false;           // written, 0 included (a sweep's or a baseline's "none")
  double random_min = 1.2, random_max = 1.2;    // a drawn GPU's factor, uniform in [min, max]
  bool random_slowdown_given = false;           // random_slowdown written (refused without a fraction)
  uint64_t seed = 1;
  bool seed_given = false;
  std::vector<LinkCondition> links; // one entry per link named, its conditions merged

  bool gpu_conditions() const { return !gpus.empty() || !nodes.empty() || random_fraction > 0; }
  bool any() const { return gpu_conditions() || !links.empty(); }
};

// The largest factor a slowdown or a link's bandwidth factor may be: a GPU 100 times slower is
// a GPU out of service, which a job does not run on.
inline constexpr double kMaxSlowdown = 100;

// The readers of the section's keys, each throwing InputError naming `where` and what is valid.
std::vector<SlowdownRange> parse_slowdowns(const std::string& text, const std::string& where, const char* unit);
void parse_random_slowdown(const std::string& text, Conditions& c, const std::string& where);
void parse_link_factors(const std::string& text, std::vector<LinkCondition>& links, const std::string& where);
void parse_link_latencies(const std::string& text, std::vector<LinkCondition>& links, const std::string& where);
void parse_links_down(const std::string& text, std::vector<LinkCondition>& links, const std::string& where);

// Each key written back as it reads (the resolved workload): empty when it has no entries.
std::string slowdowns_text(const std::vector<SlowdownRange>& ranges);
std::string random_slowdown_text(const Conditions& c);
std::string link_factors_text(const std::vector<LinkCondition>& links);
std::string link_latencies_text(const std::vector<LinkCondition>& links);
std::string links_down_text(const std::vector<LinkCondition>& links);

// Each of the job's `gpus` GPUs' slowdown factor, in platform order: the listed GPUs', their
// nodes' (`node_of`, per GPU of the job) and the seeded draw's, the largest where several apply.
// The draw is the same on every machine (its own generator and arithmetic, no library
// distribution). Throws InputError naming the key when a listed GPU or node is not the job's.
// `first_gpu` is the job's first GPU on the platform (placement), `node_of` each job GPU's node.
std::vector<double> gpu_slowdowns(const Conditions& c, int64_t first_gpu, const std::vector<int>& node_of,
                                  const std::string& source);

} // namespace simgpt
