#include "engine/circuits.hpp"

#include <tuple>

#include <fmt/format.h>

#include <map>

#include "systems/tdm4/plan.hpp"
#include "trace/writers.hpp"

namespace odcn::engine {

namespace sg4 = simgrid::s4u;
using Track = trace::TraceEvent::Track;
using Phase = trace::TraceEvent::Phase;

namespace {

/// The name of switch `sw` (net::Network::pair_switch) in trace.json.
std::string switch_label(const net::Network& n, int sw) {
  if (n.kind == "clos_ocs") return fmt::format("OXC {}", sw);
  if (n.kind == "photonic_rail") return fmt::format("rail {} OCS", sw);
  if (n.kind == "flat_ocs") return "OCS layer";  // a pair's circuits may be on any of its OCSes: one process
  return fmt::format("switch {}", sw);
}

}  // namespace

Circuits::Circuits(SimPlatform& platform, const net::Network& network, net::CircuitConfig initial,
                   trace::RunRecord& record)
    : platform_(platform),
      network_(network),
      current_(std::move(initial)),
      record_(record),
      generation_(network.pairs.size(), 0),
      windows_(network.pairs.size(), {0.0, 0.0}),
      lit_(current_.circuits) {
  int switches = 0;
  for (int sw : network.pair_switch) switches = std::max(switches, sw + 1);
  const auto n = static_cast<std::size_t>(switches);
  lit_on_switch_.assign(n, 0);
  counted_.assign(n, -1);
  added_.assign(n, 0);
  removed_.assign(n, 0);
  for (std::size_t p = 0; p < network.pairs.size(); ++p) {
    const int l = current_.circuits[p];
    if (l == 0) continue;
    const auto [a, b] = network.pairs[p];
    record_.circuits.push_back({0.0, network.pair_switch[p], a, b, 0, l, "initial"});
    lit_on_switch_[static_cast<std::size_t>(network.pair_switch[p])] += l;
  }
  for (int sw = 0; sw < switches; ++sw)
    record_.add_event({Track::fabric, Phase::label, sw, switch_label(network, sw), "", 0, 0, ""});
  for (int sw = 0; sw < switches; ++sw)
    if (lit_on_switch_[static_cast<std::size_t>(sw)] > 0) count(sw, 0.0);
}

void Circuits::count(int sw, Seconds now) {
  const auto s = static_cast<std::size_t>(sw);
  if (lit_on_switch_[s] == counted_[s]) return;
  counted_[s] = lit_on_switch_[s];
  record_.add_event({Track::fabric, Phase::counter, sw, "lit circuits", "circuits", now, 0,
                     fmt::format("\"value\":{}", counted_[s])});
}

int Circuits::apply(const net::CircuitConfig& config, const std::string& reason, Seconds record_at) {
  network_.check(config);
  std::vector<std::pair<int, int>> changes;
  for (std::size_t p = 0; p < network_.pairs.size(); ++p)
    if (config.circuits[p] != current_.circuits[p]) changes.emplace_back(static_cast<int>(p), config.circuits[p]);
  return change(changes, reason, record_at);
}

int Circuits::apply_changes(const std::vector<std::pair<int, int>>& changes, const std::string& reason,
                            Seconds record_at) {
  return change(changes, reason, record_at);
}

int Circuits::change(const std::vector<std::pair<int, int>>& changes, const std::string& reason, Seconds record_at) {
  const Seconds now = sg4::Engine::get_clock();
  if (record_at < 0) record_at = now;
  const Seconds delay = network_.reconfig_delay_s;
  // All book-keeping first, then the SimGrid calls: another actor may apply a configuration while this one is
  // inside set_pair_capacity, and must find current_, lit_ and the generations already up to date.
  // How long until dark circuits light: (pair, generation, how many of its circuits are lit then).
  std::map<Seconds, Rising> rising;
  std::vector<int> touched;
  int changed = 0;
  std::fill(added_.begin(), added_.end(), 0);
  std::fill(removed_.begin(), removed_.end(), 0);
  for (const auto& [p, after] : changes) {
    const auto pi = static_cast<std::size_t>(p);
    const int before = current_.circuits[pi];
    if (before == after) continue;
    current_.circuits[pi] = after;
    changed += std::abs(after - before);
    const auto [a, b] = network_.pairs[pi];
    const auto sw = static_cast<std::size_t>(network_.pair_switch[pi]);
    record_.circuits.push_back({record_at, network_.pair_switch[pi], a, b, before, after, reason});
    (after > before ? added_[sw] : removed_[sw]) += std::abs(after - before);
    // Lit circuits that stay keep carrying traffic; added ones light up after δ; circuits still being set up
    // by an earlier configuration light up when that set-up ends. Only removing circuits supersedes the pair's
    // pending set-ups (its generation changes, and what is left is rescheduled); adding circuits leaves them to
    // light at their own time, even at this very instant.
    const bool pending = lit_[pi] < before;
    const int was_lit = lit_[pi];
    lit_[pi] = std::min(lit_[pi], after);
    lit_on_switch_[sw] += lit_[pi] - was_lit;
    touched.push_back(p);
    if (after > before) {
      windows_[pi] = {now, now + delay};
      lit_by_ = std::max(lit_by_, now + delay);
      rising[delay].emplace_back(p, generation_[pi], after);
    } else {
      ++generation_[pi];
      if (pending && lit_[pi] < after) {
        rising[windows_[pi].second - now].emplace_back(p, generation_[pi], after);
        lit_by_ = std::max(lit_by_, windows_[pi].second);
      }
      else  // nothing of the pair is dark any more: its set-up window ends now, so no later traffic stalls
        windows_[pi].second = std::min(windows_[pi].second, now);
    }
  }
  if (changed == 0) return 0;
  record_.reconfigurations += 1;
  record_.circuits_changed += changed;
  // The trace, per switch in order: before the SimGrid calls below, which may let other actors run.
  const std::string quoted = trace::json_string(reason);
  for (std::size_t sw = 0; sw < added_.size(); ++sw) {
    if (added_[sw] == 0 && removed_[sw] == 0) continue;
    const int id = static_cast<int>(sw);
    record_.add_event({Track::fabric, Phase::instant, id, "reconfigure", "reconfigure", now, 0,
                       fmt::format("\"reason\":{},\"circuits\":{},\"added\":{},\"removed\":{},\"delay_s\":{}",
                                   quoted, added_[sw] + removed_[sw], added_[sw], removed_[sw],
                                   trace::num(added_[sw] > 0 ? delay : 0.0))});
    if (added_[sw] > 0)
      record_.add_event({Track::fabric, Phase::complete, id, reason, "reconfigure", now, delay,
                         fmt::format("\"circuits\":{}", added_[sw])});
    count(id, now);
  }
  for (int p : touched) push(p);
  for (auto& [wait, list] : rising) start_setup(wait, std::move(list));
  return changed;
}

/// As a fresh actor per set-up did (sleep `wait` from now, then light), from a pooled one. The idle ones form an
/// intrusive list, so that no actor grows a container on its own SimGrid stack (see Executor::in_waiter).
void Circuits::start_setup(Seconds wait, Rising list) {
  SetUp* s = idle_setups_;
  if (s == nullptr) {
    setups_.push_back(std::make_unique<SetUp>());
    s = setups_.back().get();
    sg4::Actor::create("ocs-setup", platform_.control_host(), [this, s] {
      while (true) {
        s->go->acquire();
        sg4::this_actor::sleep_for(s->wait);
        light(s->list);
        s->list.clear();
        s->next_idle = idle_setups_;
        idle_setups_ = s;
      }
    })->daemonize();
  } else {
    idle_setups_ = s->next_idle;
  }
  s->wait = wait;
  s->list = std::move(list);
  s->go->release();
}

void Circuits::light(const Rising& list) {
  std::vector<int> lit;
  for (const auto& [p, gen, target] : list)
    if (generation_[static_cast<std::size_t>(p)] == gen) {  // not superseded by a later configuration
      const auto pi = static_cast<std::size_t>(p);
      const int now_lit = std::max(lit_[pi], std::min(target, current_.circuits[pi]));
      lit_on_switch_[static_cast<std::size_t>(network_.pair_switch[pi])] += now_lit - lit_[pi];
      lit_[pi] = now_lit;
      lit.push_back(p);
    }
  // Exceptions must not cross SimGrid's contexts: a failed trace write is kept for the owner to raise.
  bool caught = false;
  try {
    for (int p : lit) count(network_.pair_switch[static_cast<std::size_t>(p)], sg4::Engine::get_clock());
  } catch (const std::exception&) {
    if (!error_) error_ = std::current_exception();
    caught = true;
  }
  if (caught && on_error_) on_error_();  // outside the handler: it may switch actors
  for (int p : lit) push(p);
}

void Circuits::push(int pair) {
  // Read at the time of the call, so that whichever push comes last sets the latest state.
  const int l = lit_[static_cast<std::size_t>(pair)];
  platform_.set_pair_capacity(pair, l > 0 ? l * network_.circuit_bytes_per_s : sched::kDarkBytesPerSecond);
}

}  // namespace odcn::engine
