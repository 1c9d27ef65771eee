#include "systems/tdm4/plan.hpp"

#include <algorithm>

namespace odcn::sched {

const char* to_string(Activity a) {
  switch (a) {
    case Activity::communicate: return "communicate";
    case Activity::train: return "train";
    case Activity::aggregate: return "aggregate";
  }
  return "?";
}

Seconds pair_time_with_reconfig(Bytes bytes, int before, int after, BytesPerSecond port, Seconds delay) {
  if (bytes <= 0) return 0;
  const BytesPerSecond full = after * port;
  if (before == after) return bytes / full;
  const int kept = std::min(before, after);
  const BytesPerSecond early = kept > 0 ? kept * port : kDarkBytesPerSecond;
  if (bytes <= early * delay) return bytes / early;
  return delay + (bytes - early * delay) / full;
}

}  // namespace odcn::sched
