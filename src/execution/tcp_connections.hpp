// The TCP state of each (sender, receiver) connection a replay's point-to-point messages use:
// the congestion window a message finds decides how long its first bytes take.
#pragma once

#include "system/cluster.hpp"

#include <map>
#include <optional>
#include <utility>

namespace simgpt {

class TcpConnections {
public:
  explicit TcpConnections(const Cluster& cluster) : cluster_(cluster) {}

  // A message of `bytes` from GPU `from` to GPU `to` starts sending at `now`: the seconds its
  // connection's window ramp adds before its bytes go at the route's rate (0 off TCP routes).
  double message_starts(int from, int to, double bytes, double now);
  // The message's last byte left its sender at `now`.
  void message_left(int from, int to, double now);

private:
  // A connection's path, messages sending, when the last one's bytes left, and its congestion
  // window (0: not used yet).
  struct Connection {
    std::optional<TcpPath> path;
    int sending = 0;
    double last_left = 0;
    double window = 0;
  };
  const Cluster& cluster_;
  std::map<std::pair<int, int>, Connection> connections_;
};

} // namespace simgpt
