#include "execution/tcp_connections.hpp"

#include <algorithm>
#include <cmath>

namespace simgpt {

// TCP's slow start when a connection restarts after idling (Linux net/ipv4/tcp_output.c,
// tcp_slow_start_after_idle_check and tcp_cwnd_restart, on by default with the sysctl
// net.ipv4.tcp_slow_start_after_idle; RFC 5681 section 4.1): when a socket has sent nothing for
// longer than its retransmission timeout (RTO: the round trip plus TCP_RTO_MIN, 200 ms), its
// congestion window is halved for each further RTO of idleness, down to the initial window (10
// segments); a new connection starts there too. From a window w below the route's bandwidth-delay
// product (rate x round trip) the window doubles each round trip, so the message's first
// bytes - w go out in log2(bdp / w) round trips instead of (bdp - w) / rate: the difference is
// the time this returns, spent before the message's bytes go at the route's rate. A message
// shorter than the ramp takes log2(bytes / w + 1) round trips. Back-to-back messages on a busy
// connection keep its window. Only flows through a NIC are TCP (Cluster::tcp_path).
double TcpConnections::message_starts(int from, int to, double bytes, double now) {
  Connection& c = connections_[{from, to}];
  if (!c.path)
    c.path = cluster_.tcp_path(from, to);
  const TcpPath& p = *c.path;
  ++c.sending;
  if (!p.tcp || p.rate_Bps <= 0 || p.rtt_s <= 0)
    return 0;
  const double bdp = p.rate_Bps * p.rtt_s;
  if (c.sending == 1) {
    constexpr double kRtoMin = 0.200; // TCP_RTO_MIN, include/net/tcp.h
    const double rto = p.rtt_s + kRtoMin;
    if (c.window <= 0) {
      c.window = p.initial_window_bytes;
    } else if (const double idle = now - c.last_left; idle > rto) {
      // tcp_cwnd_restart: while ((delta -= rto) > 0 && cwnd > restart) cwnd >>= 1;
      const double halvings = std::ceil(idle / rto) - 1;
      const int shifts = static_cast<int>(std::min(halvings, 60.0));
      c.window = std::max(std::min(p.initial_window_bytes, c.window), std::ldexp(c.window, -shifts));
    }
  }
  if (c.window >= bdp)
    return 0;
  const double ramp_bytes = bdp - c.window;
  double lost = 0;
  if (bytes >= ramp_bytes) {
    lost = std::log2(bdp / c.window) * p.rtt_s - ramp_bytes / p.rate_Bps;
    c.window = bdp;
  } else {
    lost = std::log2(bytes / c.window + 1) * p.rtt_s - bytes / p.rate_Bps;
    c.window += bytes;
  }
  return std::max(0.0, lost);
}

void TcpConnections::message_left(int from, int to, double now) {
  Connection& c = connections_[{from, to}];
  --c.sending;
  c.last_left = now;
}

} // namespace simgpt
