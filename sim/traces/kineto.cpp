#include "traces/kineto.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <istream>
#include <limits>
#include <map>
#include <new>
#include <nlohmann/json.hpp>
#include <streambuf>
#include <unordered_set>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"
#include "spec/field_path.hpp"
#include "spec/json_reader.hpp"
#include "spec/yaml_reader.hpp"

namespace odcn::workload {

namespace {

using Json = nlohmann::json;
using spec::join_field;
using spec::JsonMap;
using spec::JsonValue;
using Kind = RankEvent::Kind;
using Nanos = std::int64_t;  // trace times, exactly: Kineto writes microseconds with three decimals

constexpr Nanos kMaxAbsNanos = 1'000'000'000'000'000'000;   // 1e15 us (31 years): sums stay within int64
constexpr std::int64_t kMaxNelems = 1'000'000'000'000'000;  // limits::kMaxBytes of one-byte elements
constexpr std::size_t kProfilerTruncates = 30;              // lists longer than this are cut ("[0, ..., 63]")

// ---------------------------------------------------------------------------------------------------------
// gzip, inflated as the parser reads, so that a large trace is never held inflated in memory.

/// A stream buffer over gzip'd bytes (one or more gzip members back to back). Its errors are InputErrors
/// thrown from underflow(); nlohmann's stream adapter calls sbumpc() directly, so they reach the caller as
/// they are.
class GunzipBuffer : public std::streambuf {
 public:
  GunzipBuffer(const std::string& in, std::string file) : in_(in), file_(std::move(file)) {
    if (inflateInit2(&zs_, 16 + MAX_WBITS) != Z_OK) throw std::bad_alloc();  // 16: gzip wrapper only
  }
  ~GunzipBuffer() override { inflateEnd(&zs_); }
  /// Whether all of the gzip data has been inflated, and how much JSON it gave.
  bool finished() const { return done_; }
  std::int64_t inflated() const { return inflated_; }
  GunzipBuffer(const GunzipBuffer&) = delete;
  GunzipBuffer& operator=(const GunzipBuffer&) = delete;

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    while (!done_) {
      if (zs_.avail_in == 0 && fed_ < in_.size()) {  // zlib counts input in 32 bits: feed it in chunks
        const std::size_t chunk = std::min<std::size_t>(in_.size() - fed_, std::size_t{1} << 30);
        zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in_.data() + fed_));
        zs_.avail_in = static_cast<uInt>(chunk);
        fed_ += chunk;
      }
      zs_.next_out = reinterpret_cast<Bytef*>(out_.data());
      zs_.avail_out = static_cast<uInt>(out_.size());
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      const std::size_t produced = out_.size() - zs_.avail_out;
      inflated_ += static_cast<std::int64_t>(produced);
      if (inflated_ > kMaxKinetoJsonBytes)
        throw InputError(file_, "(file)",
                         fmt::format("inflates to more than {} MiB of JSON (the limit of a gzip'd trace)",
                                     kMaxKinetoJsonBytes >> 20));
      if (rc == Z_STREAM_END) {
        const std::size_t at = fed_ - zs_.avail_in;  // first byte after this gzip member
        if (at == in_.size()) {
          done_ = true;
        } else if (in_.size() - at >= 2 && static_cast<unsigned char>(in_[at]) == 0x1f &&
                   static_cast<unsigned char>(in_[at + 1]) == 0x8b) {
          inflateReset(&zs_);  // another member follows (files joined with cat)
        } else {
          throw InputError(file_, "(file)",
                           fmt::format("has {} bytes after the end of its gzip data", in_.size() - at));
        }
      } else if (rc == Z_BUF_ERROR) {  // no progress possible: out of input
        if (fed_ == in_.size() && zs_.avail_in == 0)
          throw InputError(
              file_, "(file)",
              fmt::format("the gzip data ends early, after {} bytes of JSON (a truncated file?)", inflated_));
        if (zs_.avail_in != 0) throw InputError(file_, "(file)", "is not valid gzip data (no progress)");
      } else if (rc != Z_OK) {
        throw InputError(file_, "(file)", fmt::format("is not valid gzip data ({})", zs_.msg ? zs_.msg : zError(rc)));
      }
      if (produced > 0) {
        setg(out_.data(), out_.data(), out_.data() + produced);
        return traits_type::to_int_type(*gptr());
      }
    }
    return traits_type::eof();
  }

 private:
  const std::string& in_;
  std::string file_;
  z_stream zs_{};
  std::size_t fed_ = 0;
  std::int64_t inflated_ = 0;
  bool done_ = false;
  std::array<char, 1 << 16> out_{};
};

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// ---------------------------------------------------------------------------------------------------------
// Reading the JSON. spec::parse_json would build the whole document: with about 20 values per event, a
// trace of 40,000 events is close to a million nodes, ~10x the file in memory, and a 150 MB trace would
// exceed limits::kMaxYamlNodes. This reader drives nlohmann's SAX parser itself with the same strictness
// (no key twice in any object, bounded nesting, overflowing numbers refused, errors naming the field) and
// keeps only what the import needs: distributedInfo, and from each trace event its ph, cat, name, ts, dur
// and the arguments of communications. Each event is handed over as soon as it is read.

/// The keys of one object, to refuse a key given twice (nlohmann would keep the last one silently).
class KeySet {
 public:
  bool insert(const std::string& key) {
    if (many_.empty()) {
      if (std::find(few_.begin(), few_.end(), key) != few_.end()) return false;
      if (few_.size() < 16) {
        few_.push_back(key);
        return true;
      }
      many_.insert(few_.begin(), few_.end());
    }
    return many_.insert(key).second;
  }

 private:
  std::vector<std::string> few_;
  std::unordered_set<std::string> many_;
};

bool is_event_key(const std::string& k) { return k == "ph" || k == "cat" || k == "name" || k == "ts" || k == "dur"; }

// The arguments of record_param_comms and of NCCL kernels that the import reads.
constexpr std::array<const char*, 15> kArgKeys{
    "Collective name", "In msg nelems",     "Out msg nelems",     "dtype", "Process Group Name", "Process Group Ranks",
    "Group size",      "Global rank start", "Global rank stride", "Rank",  "Src Rank",           "Dst Rank",
    "In split size",   "Out split size",    "External id"};

bool is_arg_key(const std::string& k) {
  return std::any_of(kArgKeys.begin(), kArgKeys.end(), [&](const char* a) { return k == a; });
}

/// A number of microseconds as Kineto writes it ("4458676416788.066"), read exactly into nanoseconds: a
/// double holds only ~16 digits, and a step's compute is a difference of such timestamps. Digits beyond the
/// nanosecond are rounded.
Nanos micros_to_ns(const JsonValue& v, const std::string& file, const std::string& field, bool may_be_negative) {
  if (v.kind != JsonValue::Kind::number) throw InputError(file, field, "must be a number (of microseconds)");
  const auto bad = [&]() { return InputError(file, field, fmt::format("must be a number (got '{}')", shown(v.text))); };
  std::string_view s = v.text;
  const bool negative = !s.empty() && s.front() == '-';
  if (negative) s.remove_prefix(1);
  std::string digits;
  int scale = 0;  // value = digits x 10^scale microseconds
  bool dot = false;
  std::size_t i = 0;
  for (; i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'); ++i) {
    if (s[i] == '.') {
      if (dot) throw bad();
      dot = true;
      continue;
    }
    if (digits.empty() && s[i] == '0') {  // leading zeros carry nothing
      if (dot) --scale;
      continue;
    }
    digits += s[i];
    if (dot) --scale;
  }
  if (i < s.size()) {
    if (s[i] != 'e' && s[i] != 'E') throw bad();
    std::string_view e = s.substr(i + 1);
    const bool e_negative = !e.empty() && e.front() == '-';
    if (!e.empty() && (e.front() == '-' || e.front() == '+')) e.remove_prefix(1);
    if (e.empty() || e.size() > 4 || !std::all_of(e.begin(), e.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw bad();
    const int exponent = std::stoi(std::string(e));
    scale += e_negative ? -exponent : exponent;
  }
  Nanos ns = 0;
  const long long shift = static_cast<long long>(scale) + 3;  // to nanoseconds
  const long long n = static_cast<long long>(digits.size());
  const auto out_of_range = [&]() {
    return InputError(file, field, fmt::format("is out of range (at most 1e15 microseconds; got '{}')", shown(v.text)));
  };
  if (!digits.empty()) {
    if (shift >= 0) {
      if (n + shift > 18) throw out_of_range();
      for (char c : digits) ns = ns * 10 + (c - '0');
      for (long long k = 0; k < shift; ++k) ns *= 10;
    } else if (n + shift > 0) {
      if (n + shift > 18) throw out_of_range();
      const auto keep = static_cast<std::size_t>(n + shift);
      for (std::size_t k = 0; k < keep; ++k) ns = ns * 10 + (digits[k] - '0');
      if (digits[keep] >= '5') ++ns;
    } else if (n + shift == 0 && digits.front() >= '5') {
      ns = 1;
    }
  }
  if (ns > kMaxAbsNanos) throw out_of_range();
  if (negative && ns != 0 && !may_be_negative)
    throw InputError(file, field, fmt::format("must be >= 0 (got {})", shown(v.text)));
  return negative ? -ns : ns;
}

struct StepMark {
  int number = 0;
  std::size_t index = 0;
  Nanos start = 0, end = 0;
};

struct CommOp {  // a record_param_comms CPU op
  std::size_t index = 0;
  Nanos start = 0, end = 0;
  std::optional<std::int64_t> external_id;
  JsonValue args;  // only kArgKeys
};

struct NcclKernel {
  std::size_t index = 0;
  Nanos start = 0, end = 0;
  std::optional<std::int64_t> external_id;
  std::string signature;
  bool used = false;
};

const JsonValue* member(const JsonValue& v, const char* key) {
  for (const auto& [k, m] : v.members)
    if (k == key) return &m;
  return nullptr;
}

/// What identifies a communication on its kernel: Kineto copies these arguments from the CPU op to the kernel.
std::string signature(const JsonValue& args) {
  std::string s;
  for (const char* key : {"Collective name", "In msg nelems", "Out msg nelems", "dtype"}) {
    const JsonValue* v = member(args, key);
    s += v ? v->text : std::string("\x01");
    s += '\x1f';
  }
  return s;
}

std::optional<std::int64_t> external_id(const JsonValue& args, const std::string& file, const std::string& field) {
  const JsonValue* v = member(args, "External id");
  if (!v) return std::nullopt;
  return spec::json_integer(*v, file, join_field(field, "External id"), std::numeric_limits<std::int64_t>::min(),
                            std::numeric_limits<std::int64_t>::max());
}

class TraceReader : public nlohmann::json_sax<Json> {
 public:
  /// `input_ended(position)`: whether the parser had read past the last byte of the JSON when it stopped at
  /// `position` (nlohmann counts reading the end of the input as one more byte).
  TraceReader(std::string file, std::function<bool(std::size_t)> input_ended)
      : file_(std::move(file)), input_ended_(std::move(input_ended)) {}

  std::optional<JsonValue> distributed_info;
  bool saw_events = false;
  std::vector<StepMark> steps;
  std::vector<CommOp> comms;
  std::vector<NcclKernel> kernels;
  std::optional<Nanos> first_start, last_end;  // over all complete ('X') events

  bool null() override {
    return scalar([] { return JsonValue{}; });
  }
  bool boolean(bool v) override {
    return scalar([v] { return JsonValue::scalar(JsonValue::Kind::boolean, v ? "true" : "false", false); });
  }
  bool number_integer(number_integer_t v) override {
    return scalar([v] { return JsonValue::scalar(JsonValue::Kind::number, std::to_string(v), true); });
  }
  bool number_unsigned(number_unsigned_t v) override {
    return scalar([v] { return JsonValue::scalar(JsonValue::Kind::number, std::to_string(v), true); });
  }
  bool number_float(number_float_t, const string_t& s) override {
    return scalar([&s] { return JsonValue::scalar(JsonValue::Kind::number, s, false); });
  }
  bool string(string_t& v) override {
    return scalar([&v] { return JsonValue::scalar(JsonValue::Kind::string, std::move(v), false); });
  }
  bool binary(binary_t&) override {
    return scalar([] { return JsonValue{}; });
  }
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool key(string_t& k) override {
    Frame& f = stack_.back();
    if (!f.keys.insert(k)) throw InputError(file_, join_field(f.path, shown(k)), "duplicate key");
    f.pending_key = k;
    return true;
  }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string& last_token, const nlohmann::detail::exception& e) override {
    if (e.id == 406)  // a number that overflows a double
      throw InputError(file_, spec::field_or_root(child_path()),
                       fmt::format("is too large or too small for a number (got '{}')", shown(last_token)));
    std::string what = e.what();
    if (what.find("unexpected end of input") != std::string::npos || input_ended_(position))
      throw InputError(file_, "(file)", fmt::format("the JSON ends early, at byte {} (a truncated file?)", position));
    if (const auto at = what.find("syntax error"); at != std::string::npos) what = what.substr(at);
    throw InputError(file_, "(file)", fmt::format("not valid JSON at byte {}: {}", position, what));
  }

 private:
  // root: the document; events: traceEvents; event: one trace event (keeps ph, cat, name, ts, dur, args);
  // args: its arguments (keeps kArgKeys); capture: kept whole; skip: read, checked and dropped.
  enum class Role { root, events, event, args, capture, skip };
  struct Frame {
    Role role = Role::skip;
    bool object = true;
    std::string path;
    KeySet keys;
    std::string pending_key;
    std::size_t items = 0;
    JsonValue value;  // event, args, capture
  };

  std::string child_path() const {
    if (stack_.empty()) return "";
    const Frame& f = stack_.back();
    return f.object ? join_field(f.path, f.pending_key) : fmt::format("{}[{}]", f.path, f.items);
  }

  Role child_role() const {
    const Frame& p = stack_.back();
    switch (p.role) {
      case Role::root:
        if (p.pending_key == "traceEvents") return Role::events;
        return p.pending_key == "distributedInfo" ? Role::capture : Role::skip;
      case Role::events:
        return Role::event;
      case Role::event:
        if (p.pending_key == "args") return Role::args;
        return is_event_key(p.pending_key) ? Role::capture : Role::skip;
      case Role::args:
        return is_arg_key(p.pending_key) ? Role::capture : Role::skip;
      case Role::capture:
        return Role::capture;
      case Role::skip:
        return Role::skip;
    }
    return Role::skip;
  }

  template <typename Make>
  bool scalar(Make make_value) {
    if (stack_.empty()) throw InputError(file_, "(root)", "must be a JSON object (a Kineto trace)");
    switch (child_role()) {
      case Role::skip:
        break;
      case Role::events:
        throw InputError(file_, "traceEvents", "must be a list");
      case Role::event:
        throw InputError(file_, child_path(), "must be an object (a trace event)");
      case Role::args:
        throw InputError(file_, child_path(), "must be an object");
      default:
        keep(make_value());
        return true;  // keep() counted it
    }
    ++stack_.back().items;
    return true;
  }

  bool open(bool object) {
    const std::string path = child_path();
    if (static_cast<int>(stack_.size()) >= limits::kMaxYamlDepth)
      throw InputError(file_, spec::field_or_root(path),
                       fmt::format("is nested more than {} levels deep", limits::kMaxYamlDepth));
    Frame f;
    f.path = path;
    f.object = object;
    if (stack_.empty()) {
      if (!object) throw InputError(file_, "(root)", "must be a JSON object (a Kineto trace)");
      f.role = Role::root;
    } else {
      f.role = child_role();
    }
    if (f.role == Role::events && object) throw InputError(file_, "traceEvents", "must be a list");
    if ((f.role == Role::event || f.role == Role::args) && !object)
      throw InputError(file_, path, f.role == Role::event ? "must be an object (a trace event)" : "must be an object");
    if (f.role == Role::events) saw_events = true;
    if (f.role == Role::event || f.role == Role::args || f.role == Role::capture)
      f.value.kind = object ? JsonValue::Kind::object : JsonValue::Kind::array;
    stack_.push_back(std::move(f));
    return true;
  }

  bool close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    if (stack_.empty()) return true;  // the root
    switch (f.role) {
      case Role::event:
        on_event(stack_.back().items, std::move(f.value), f.path);
        ++stack_.back().items;
        break;
      case Role::args:
      case Role::capture:
        keep(std::move(f.value));
        break;
      default:
        ++stack_.back().items;
    }
    return true;
  }

  /// Adds a kept value to the frame being read.
  void keep(JsonValue v) {
    Frame& p = stack_.back();
    if (p.role == Role::root)
      distributed_info = std::move(v);
    else if (p.value.kind == JsonValue::Kind::object)
      p.value.members.emplace_back(p.pending_key, std::move(v));
    else
      p.value.items.push_back(std::move(v));
    ++p.items;
  }

  void on_event(std::size_t index, JsonValue ev, const std::string& field) {
    const JsonMap m(ev, file_, field);
    if (m.text("ph") != "X") return;  // only complete events carry durations
    const std::string name = m.text("name");
    const std::string cat = m.has("cat") ? m.text("cat") : std::string();
    const Nanos start = micros_to_ns(m.value("ts"), file_, m.field("ts"), true);
    const Nanos end = start + micros_to_ns(m.value("dur"), file_, m.field("dur"), false);
    first_start = std::min(first_start.value_or(start), start);
    last_end = std::max(last_end.value_or(end), end);
    JsonValue args;
    args.kind = JsonValue::Kind::object;
    for (auto& [k, v] : ev.members)
      if (k == "args") args = std::move(v);
    static const std::string step_prefix = "ProfilerStep#";
    if (name.compare(0, step_prefix.size(), step_prefix) == 0 && cat != "gpu_user_annotation") {
      const std::string number = name.substr(step_prefix.size());
      if (number.empty() || !std::all_of(number.begin(), number.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
        throw InputError(file_, m.field("name"), fmt::format("is not ProfilerStep#<number> (got '{}')", shown(name)));
      StepMark s;
      s.number = static_cast<int>(parse_integer(number, 0, std::numeric_limits<int>::max(), file_, m.field("name")));
      s.index = index;
      s.start = start;
      s.end = end;
      for (const StepMark& other : steps)
        if (other.number == s.number)
          throw InputError(file_, m.field("name"),
                           fmt::format("ProfilerStep#{} appears twice (also traceEvents[{}])", s.number, other.index));
      steps.push_back(s);
    } else if (name == "record_param_comms" && cat != "kernel") {
      CommOp c;
      c.index = index;
      c.start = start;
      c.end = end;
      c.external_id = external_id(args, file_, m.field("args"));
      c.args = std::move(args);
      comms.push_back(std::move(c));
    } else if (cat == "kernel" && member(args, "Collective name")) {
      NcclKernel k;
      k.index = index;
      k.start = start;
      k.end = end;
      k.external_id = external_id(args, file_, m.field("args"));
      k.signature = signature(args);
      kernels.push_back(std::move(k));
    }
  }

  std::string file_;
  std::function<bool(std::size_t)> input_ended_;
  std::vector<Frame> stack_;
};

// ---------------------------------------------------------------------------------------------------------
// From the events read to the rank's trace.

struct OpInfo {
  Kind kind = Kind::collective;
  CollectiveOp op = CollectiveOp::all_reduce;
  bool by_output = false;  // S counts the output's elements (all-gather, recv), else the input's
};

/// PyTorch's c10d names (ProcessGroupNCCL and friends) of what odcnsim models; nullopt for anything else.
std::optional<OpInfo> op_of(const std::string& name) {
  static const std::map<std::string, OpInfo> ops{
      {"allreduce", {Kind::collective, CollectiveOp::all_reduce, false}},
      {"all_reduce", {Kind::collective, CollectiveOp::all_reduce, false}},
      {"allreduce_coalesced", {Kind::collective, CollectiveOp::all_reduce, false}},
      {"allgather", {Kind::collective, CollectiveOp::all_gather, true}},
      {"all_gather", {Kind::collective, CollectiveOp::all_gather, true}},
      {"_allgather_base", {Kind::collective, CollectiveOp::all_gather, true}},
      {"all_gather_into_tensor", {Kind::collective, CollectiveOp::all_gather, true}},
      {"allgather_coalesced", {Kind::collective, CollectiveOp::all_gather, true}},
      {"allgather_into_tensor_coalesced", {Kind::collective, CollectiveOp::all_gather, true}},
      {"reduce_scatter", {Kind::collective, CollectiveOp::reduce_scatter, false}},
      {"_reduce_scatter_base", {Kind::collective, CollectiveOp::reduce_scatter, false}},
      {"reduce_scatter_tensor", {Kind::collective, CollectiveOp::reduce_scatter, false}},
      {"reduce_scatter_tensor_coalesced", {Kind::collective, CollectiveOp::reduce_scatter, false}},
      {"broadcast", {Kind::collective, CollectiveOp::broadcast, false}},
      {"_broadcast_oop", {Kind::collective, CollectiveOp::broadcast, false}},
      {"all_to_all", {Kind::collective, CollectiveOp::all_to_all, false}},
      {"alltoall", {Kind::collective, CollectiveOp::all_to_all, false}},
      {"alltoall_base", {Kind::collective, CollectiveOp::all_to_all, false}},
      {"send", {Kind::send, CollectiveOp::send_recv, false}},
      {"recv", {Kind::recv, CollectiveOp::send_recv, true}}};
  const auto it = ops.find(name);
  if (it == ops.end()) return std::nullopt;
  return it->second;
}

/// A list of ranks or sizes as the profiler writes it: the string "[0, 1, 2]", where a list of more than 30 is
/// cut to "[0, 1, ..., 28, ..., 63]" (its first 29 and its last); or, in hand-made traces, a JSON array.
struct ListedInts {
  std::vector<std::int64_t> values;
  std::optional<std::size_t> cut_at;  // values before the "..."
};

ListedInts parse_listed(const JsonValue& v, std::int64_t hi, const std::string& file, const std::string& field) {
  ListedInts out;
  if (v.kind == JsonValue::Kind::array) {
    for (std::size_t i = 0; i < v.items.size(); ++i)
      out.values.push_back(spec::json_integer(v.items[i], file, fmt::format("{}[{}]", field, i), 0, hi));
    return out;
  }
  const auto bad = [&]() {
    return InputError(file, field,
                      fmt::format("must be a list such as \"[0, 1]\" (got {})",
                                  v.kind == JsonValue::Kind::string ? "'" + shown(v.text) + "'" : "another type"));
  };
  if (v.kind != JsonValue::Kind::string) throw bad();
  const std::string& s = v.text;
  std::size_t i = 0;
  const auto blanks = [&]() {
    while (i < s.size() && s[i] == ' ') ++i;
  };
  blanks();
  if (i >= s.size() || s[i] != '[') throw bad();
  ++i;
  blanks();
  if (i < s.size() && s[i] == ']') {
    ++i;
  } else {
    while (true) {
      blanks();
      if (s.compare(i, 3, "...") == 0) {
        if (out.cut_at) throw bad();
        out.cut_at = out.values.size();
        i += 3;
      } else {
        const std::size_t from = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
        if (i == from) throw bad();
        out.values.push_back(parse_integer(std::string_view(s).substr(from, i - from), 0, hi, file, field));
      }
      blanks();
      if (i < s.size() && s[i] == ',') {
        ++i;
        continue;
      }
      if (i < s.size() && s[i] == ']') {
        ++i;
        break;
      }
      throw bad();
    }
  }
  blanks();
  if (i != s.size()) throw bad();
  return out;
}

/// Whether `full` is a list that the profiler would print as `shown` (cut or not).
bool agrees(const std::vector<std::int64_t>& full, const ListedInts& shown_list) {
  if (!shown_list.cut_at) return full == shown_list.values;
  const std::size_t head = *shown_list.cut_at, tail = shown_list.values.size() - head;
  if (full.size() < head + tail) return false;
  return std::equal(shown_list.values.begin(), shown_list.values.begin() + static_cast<std::ptrdiff_t>(head),
                    full.begin()) &&
         std::equal(shown_list.values.begin() + static_cast<std::ptrdiff_t>(head), shown_list.values.end(),
                    full.end() - static_cast<std::ptrdiff_t>(tail));
}

struct Window {
  Nanos start = 0, end = 0;
  std::string label;  // "ProfilerStep#4", "trace"
  std::optional<int> step;
  bool whole = false;
};

class Importer {
 public:
  Importer(const TraceReader& r, std::string file) : r_(r), file_(std::move(file)) {}

  KinetoTrace run(const KinetoOptions& options, bool whole_trace) {
    if (!r_.distributed_info)
      throw InputError(file_, "distributedInfo",
                       "is required: the trace has no process-group information (PyTorch's profiler writes it "
                       "when torch.distributed is initialised)");
    const JsonMap dist(*r_.distributed_info, file_, "distributedInfo");
    KinetoTrace out;
    out.world_size = static_cast<int>(dist.integer("world_size", 1, limits::kMaxEndpoints));
    out.trace.rank = static_cast<int>(dist.integer("rank", 0, out.world_size - 1));
    out.trace.file = file_;
    world_ = out.world_size;
    if (!r_.saw_events) throw InputError(file_, "traceEvents", "is required");

    const Window w = window(options, whole_trace);
    out.step = w.step;
    out.window_s = static_cast<double>(w.end - w.start) * 1e-9;

    // The window's communications in the order the rank issued them.
    std::vector<const CommOp*> issued;
    for (const CommOp& c : r_.comms)
      if (w.whole || (c.start >= w.start && c.start < w.end)) issued.push_back(&c);
    std::stable_sort(issued.begin(), issued.end(),
                     [](const CommOp* a, const CommOp* b) { return a->start < b->start; });

    index_kernels();
    Nanos cursor = w.start, covered = 0, compute = 0;
    // A compute event names where it is: "ProfilerStep#4 before traceEvents[57]", "ProfilerStep#4 at its end".
    const auto add_compute = [&](Nanos gap, const std::string& where) {
      if (gap <= 0) return;
      const std::string field = fmt::format("{} {}", w.label, where);
      if (static_cast<double>(gap) * 1e-9 > limits::kMaxSeconds)
        throw InputError(file_, field,
                         fmt::format("{} s of compute without communication is more than the limit of {} s",
                                     static_cast<double>(gap) * 1e-9, limits::kMaxSeconds));
      RankEvent e;
      e.kind = Kind::compute;
      e.name = "compute";
      e.field = field;
      e.duration_s = static_cast<double>(gap) * 1e-9;
      out.trace.events.push_back(std::move(e));
      compute += gap;
    };
    for (const CommOp* c : issued) {
      std::optional<RankEvent> e = to_event(*c, dist);
      if (!e) {
        ++out.skipped;
        continue;
      }
      // Its time on the rank: its NCCL kernel(s) on the GPU, else the CPU op. Everything is clipped to the
      // window, so that compute + communication = the window exactly.
      Nanos start = c->start, end = c->end;
      if (const auto k = kernel_time(*c)) {
        start = k->first;
        end = k->second;
        ++out.timed_by_kernel;
      }
      const Nanos gap_end = std::min(start, w.end);
      add_compute(gap_end - cursor, fmt::format("before traceEvents[{}]", c->index));
      cursor = std::max(cursor, gap_end);
      const Nanos comm_end = std::min(end, w.end);
      if (comm_end > cursor) {
        covered += comm_end - cursor;
        cursor = comm_end;
      }
      (e->kind == Kind::collective ? out.collectives : out.messages) += 1;
      out.trace.events.push_back(std::move(*e));
    }
    add_compute(w.end - cursor, "at its end");
    out.compute_s = static_cast<double>(compute) * 1e-9;
    out.comm_s = static_cast<double>(covered) * 1e-9;
    return out;
  }

 private:
  Window window(const KinetoOptions& options, bool whole_trace) const {
    Window w;
    std::vector<const StepMark*> steps;
    for (const StepMark& s : r_.steps) steps.push_back(&s);
    std::stable_sort(steps.begin(), steps.end(),
                     [](const StepMark* a, const StepMark* b) { return a->start < b->start; });
    const StepMark* chosen = nullptr;
    if (options.step) {
      for (const StepMark* s : steps)
        if (s->number == *options.step) chosen = s;
      if (!chosen) {
        std::vector<int> numbers;
        for (const StepMark* s : steps) numbers.push_back(s->number);
        std::sort(numbers.begin(), numbers.end());
        const std::string have = numbers.empty()        ? std::string("it has no ProfilerStep annotation")
                                 : numbers.size() <= 12 ? fmt::format("its steps: {}", fmt::join(numbers, ", "))
                                                        : fmt::format("its {} steps: {} to {}", numbers.size(),
                                                                      numbers.front(), numbers.back());
        throw InputError(file_, "step",
                         fmt::format("there is no ProfilerStep#{} in this trace ({})", *options.step, have));
      }
      if (chosen->end <= chosen->start)
        throw InputError(file_, fmt::format("traceEvents[{}].dur", chosen->index),
                         fmt::format("ProfilerStep#{} has no duration (an unfinished step?)", chosen->number));
    } else if (!whole_trace && !steps.empty()) {
      for (const StepMark* s : steps)
        if (s->end > s->start) {
          chosen = s;
          break;
        }
      if (!chosen)
        throw InputError(file_, "step", "no ProfilerStep annotation of this trace has a duration (unfinished steps?)");
    }
    if (chosen) {
      w.start = chosen->start;
      w.end = chosen->end;
      w.step = chosen->number;
      w.label = fmt::format("ProfilerStep#{}", chosen->number);
      return w;
    }
    if (!r_.first_start) throw InputError(file_, "traceEvents", "holds no complete ('X') event");
    w.start = *r_.first_start;
    w.end = *r_.last_end;
    w.label = "trace";
    w.whole = true;
    return w;
  }

  void index_kernels() {
    by_id_.clear();
    unlinked_.clear();
    for (std::size_t i = 0; i < r_.kernels.size(); ++i) {
      const NcclKernel& k = r_.kernels[i];
      if (k.external_id)
        by_id_[*k.external_id].push_back(i);
      else
        unlinked_[k.signature].push_back(i);
    }
    for (auto& [sig, list] : unlinked_)
      std::stable_sort(list.begin(), list.end(),
                       [&](std::size_t a, std::size_t b) { return r_.kernels[a].start < r_.kernels[b].start; });
    used_.assign(r_.kernels.size(), false);
    next_.clear();
  }

  /// The GPU time of a communication: the kernels Kineto linked to its CPU op (same External id), or else the
  /// first kernel not yet taken that records the same collective and starts after the op.
  std::optional<std::pair<Nanos, Nanos>> kernel_time(const CommOp& c) {
    const std::string sig = signature(c.args);
    std::optional<std::pair<Nanos, Nanos>> t;
    if (c.external_id) {
      if (const auto it = by_id_.find(*c.external_id); it != by_id_.end())
        for (std::size_t i : it->second) {
          const NcclKernel& k = r_.kernels[i];
          if (k.signature != sig)
            throw InputError(file_, fmt::format("traceEvents[{}].args", k.index),
                             fmt::format("this NCCL kernel is linked to traceEvents[{}] (External id {}) but records "
                                         "another collective",
                                         c.index, *c.external_id));
          used_[i] = true;
          t = t ? std::make_pair(std::min(t->first, k.start), std::max(t->second, k.end))
                : std::make_pair(k.start, k.end);
        }
      if (t) return t;
    }
    const auto it = unlinked_.find(sig);
    if (it == unlinked_.end()) return std::nullopt;
    std::size_t& next = next_[sig];
    while (next < it->second.size() && (used_[it->second[next]] || r_.kernels[it->second[next]].start < c.start))
      ++next;
    if (next == it->second.size()) return std::nullopt;
    const NcclKernel& k = r_.kernels[it->second[next]];
    used_[it->second[next]] = true;
    return std::make_pair(k.start, k.end);
  }

  /// The entry of distributedInfo.pg_config for group `name`, with all its ranks; nullopt without one.
  std::optional<std::vector<std::int64_t>> pg_config_ranks(const JsonMap& dist, const std::string& name) const {
    if (!dist.has("pg_config")) return std::nullopt;
    const auto& entries = dist.array("pg_config");
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const JsonMap pg(entries[i], file_, fmt::format("distributedInfo.pg_config[{}]", i));
      if (!pg.has("pg_name") || pg.text("pg_name") != name || !pg.has("ranks")) continue;
      ListedInts ranks = parse_listed(pg.value("ranks"), world_ - 1, file_, pg.field("ranks"));
      if (ranks.cut_at) return std::nullopt;
      return std::move(ranks.values);
    }
    return std::nullopt;
  }

  /// The global ranks of a collective's group, in the group's own order (the group rank is the index).
  std::vector<std::int64_t> group_of(const JsonMap& a, const JsonMap& dist, const std::string& group_name) const {
    const char* key = "Process Group Ranks";
    const auto from_config = [&]() -> std::optional<std::vector<std::int64_t>> {
      if (group_name.empty()) return std::nullopt;
      return pg_config_ranks(dist, group_name);
    };
    if (!a.has(key)) {
      if (auto ranks = from_config()) return *ranks;
      throw InputError(file_, a.field(key),
                       "is required: the trace has no process-group information for this collective (and no "
                       "distributedInfo.pg_config entry for its group)");
    }
    const ListedInts listed = parse_listed(a.value(key), world_ - 1, file_, a.field(key));
    if (listed.values.empty()) {
      if (auto ranks = from_config()) return *ranks;
      throw InputError(file_, a.field(key),
                       "is empty: the trace has no process-group information for this collective (and no "
                       "distributedInfo.pg_config entry for its group)");
    }
    if (!listed.cut_at) return listed.values;
    // The profiler cut the list: take the group from pg_config, or from its start and stride, if they agree
    // with what the list shows.
    if (!a.has("Group size"))
      throw InputError(file_, a.field(key), "is cut short by the profiler (\"...\") and Group size is missing");
    const auto size = a.integer("Group size", 1, limits::kMaxEndpoints);
    if (auto ranks = from_config(); ranks && static_cast<std::int64_t>(ranks->size()) == size && agrees(*ranks, listed))
      return *ranks;
    if (a.has("Global rank start") && a.has("Global rank stride")) {
      const auto start = a.integer("Global rank start", 0, world_ - 1);
      const auto stride = a.integer("Global rank stride", 1, world_);
      if (start + (size - 1) * stride < world_) {
        std::vector<std::int64_t> ranks;
        for (std::int64_t i = 0; i < size; ++i) ranks.push_back(start + i * stride);
        if (agrees(ranks, listed)) return ranks;
      }
    }
    throw InputError(file_, a.field(key),
                     fmt::format("lists {} of the group's {} ranks (the profiler cuts lists longer than {}), and "
                                 "neither distributedInfo.pg_config nor Global rank start and stride give the others",
                                 listed.values.size(), size, kProfilerTruncates));
  }

  /// One record_param_comms as an event of the rank; nullopt when it moves nothing.
  std::optional<RankEvent> to_event(const CommOp& c, const JsonMap& dist) const {
    const std::string field = fmt::format("traceEvents[{}]", c.index);
    const JsonMap a(c.args, file_, field + ".args");
    if (!a.has("Collective name"))
      throw InputError(file_, a.field("Collective name"),
                       "is required: this record_param_comms does not say which collective it is (older profilers "
                       "did not record it)");
    const std::string name = a.text("Collective name");
    if (name == "wait" || name == "barrier") return std::nullopt;  // synchronisation, no data
    const auto in = a.integer("In msg nelems", 0, kMaxNelems);
    const auto out = a.integer("Out msg nelems", 0, kMaxNelems);
    const auto info = op_of(name);
    if (!info) {
      if (in == 0 && out == 0) return std::nullopt;
      throw InputError(file_, a.field("Collective name"),
                       fmt::format("unknown collective '{}' (odcnsim models allreduce, allgather, reduce_scatter, "
                                   "broadcast, alltoall, send and recv, and skips wait, barrier and empty entries)",
                                   shown(name)));
    }
    const auto nelems = info->by_output ? out : in;
    if (nelems == 0) return std::nullopt;
    const std::string dtype = a.text("dtype");
    const int element = dtype_bytes(dtype);
    if (element == 0)
      throw InputError(
          file_, a.field("dtype"),
          fmt::format("unknown dtype '{}' (its element size is not known, so the bytes are not)", shown(dtype)));
    const double bytes = static_cast<double>(nelems) * element;
    if (bytes > limits::kMaxBytes)
      throw InputError(
          file_, a.field(info->by_output ? "Out msg nelems" : "In msg nelems"),
          fmt::format("{} elements of {} B is more than the limit of {} B", nelems, element, limits::kMaxBytes));
    RankEvent e;
    e.name = name;
    e.field = field;
    e.bytes = bytes;
    if (info->kind != Kind::collective) {  // send, recv: the peer is a global rank
      const char* key = info->kind == Kind::send ? "Dst Rank" : "Src Rank";
      if (!a.has(key))
        throw InputError(file_, a.field(key),
                         fmt::format("is required: the trace does not say which rank this {} goes {} (newer "
                                     "PyTorch profilers record it)",
                                     name, info->kind == Kind::send ? "to" : "comes from"));
      e.kind = info->kind;
      e.peer = static_cast<int>(a.integer(key, 0, world_ - 1));
      return e;
    }
    e.kind = Kind::collective;
    e.op = info->op;
    e.group_name = a.has("Process Group Name") ? a.text("Process Group Name") : std::string();
    const std::vector<std::int64_t> group = group_of(a, dist, e.group_name);
    if (a.has("Group size")) {
      const auto size = a.integer("Group size", 0, limits::kMaxEndpoints);
      if (size != static_cast<std::int64_t>(group.size()))
        throw InputError(
            file_, a.field("Group size"),
            fmt::format("is {} but the group has {} ranks ({})", size, group.size(),
                        a.has("Process Group Ranks") ? "Process Group Ranks" : "distributedInfo.pg_config"));
    }
    // The root of a broadcast is its group rank ("Rank"; PyTorch records the root there); without it, the
    // group's first rank.
    std::int64_t root = group.front();
    if (e.op == CollectiveOp::broadcast && a.has("Rank"))
      root = group[static_cast<std::size_t>(a.integer("Rank", 0, static_cast<std::int64_t>(group.size()) - 1))];
    if (e.op == CollectiveOp::all_to_all)
      for (const char* key : {"In split size", "Out split size"})
        if (a.has(key)) {
          const ListedInts splits = parse_listed(a.value(key), kMaxNelems, file_, a.field(key));
          if (std::adjacent_find(splits.values.begin(), splits.values.end(), std::not_equal_to<>()) !=
              splits.values.end())
            throw InputError(file_, a.field(key),
                             "an all-to-all with uneven splits is not modelled (odcnsim's all-to-all sends the same "
                             "share to every rank)");
        }
    std::vector<std::int64_t> sorted = group;
    std::sort(sorted.begin(), sorted.end());
    if (const auto twice = std::adjacent_find(sorted.begin(), sorted.end()); twice != sorted.end())
      throw InputError(file_, a.field("Process Group Ranks"), fmt::format("lists rank {} twice", *twice));
    for (std::int64_t r : sorted) e.group.push_back(static_cast<int>(r));
    e.root = static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), root) - sorted.begin());
    return e;
  }

  const TraceReader& r_;
  std::string file_;
  int world_ = 1;
  std::map<std::int64_t, std::vector<std::size_t>> by_id_;
  std::map<std::string, std::vector<std::size_t>> unlinked_;
  std::map<std::string, std::size_t> next_;
  std::vector<bool> used_;
};

KinetoTrace parse_impl(const std::string& bytes, const std::string& file, const KinetoOptions& options,
                       bool whole_trace) {
  if (bytes.empty()) throw InputError(file, "(file)", "is empty (not a Kineto trace)");
  if (is_gzip(bytes)) {
    GunzipBuffer buffer(bytes, file);
    TraceReader reader(file, [&](std::size_t position) {
      return buffer.finished() && static_cast<std::int64_t>(position) > buffer.inflated();
    });
    std::istream in(&buffer);
    Json::sax_parse(in, &reader);
    return Importer(reader, file).run(options, whole_trace);
  }
  TraceReader reader(file, [&](std::size_t position) { return position > bytes.size(); });
  Json::sax_parse(bytes, &reader);
  return Importer(reader, file).run(options, whole_trace);
}

}  // namespace

KinetoTrace parse_kineto(const std::string& bytes, const std::string& file, const KinetoOptions& options) {
  return parse_impl(bytes, file, options, false);
}

KinetoTrace read_kineto(const std::string& path, const KinetoOptions& options) {
  return parse_kineto(spec::read_input_file(path), path, options);
}

RankTrace parse_kineto_rank(const std::string& bytes, const std::string& file, const KinetoOptions& options) {
  return parse_kineto(bytes, file, options).trace;
}

RankTrace read_kineto_rank(const std::string& path, const KinetoOptions& options) {
  return read_kineto(path, options).trace;
}

JobGraph import_kineto(const std::vector<std::string>& files, const KinetoOptions& options) {
  if (files.empty()) throw InputError("(kineto)", "files", "no trace file given");
  const std::string& first = files.front();
  if (options.iterations < 1 || options.iterations > limits::kMaxIterations)
    throw InputError(first, "iterations", fmt::format("must be between 1 and {}", limits::kMaxIterations));
  AssembleOptions assemble;
  assemble.name = options.name.empty() ? job_name_of_file(first, {".gz", ".json", ".pt.trace"}, "kineto") : options.name;
  assemble.name = spec::checked_name(assemble.name, first, "name");
  assemble.iterations = options.iterations;

  // Every file at the same step: the one asked for, or the one chosen for the first file (or every file
  // whole when the first has no step annotations).
  KinetoOptions each = options;
  bool whole = false;
  std::vector<RankTrace> traces;
  std::map<int, std::string> file_of_rank;
  for (std::size_t i = 0; i < files.size(); ++i) {
    KinetoTrace t = parse_impl(spec::read_input_file(files[i]), files[i], each, whole);
    if (i == 0) {
      assemble.ranks = t.world_size;
      if (!each.step) {
        each.step = t.step;
        whole = !t.step;
      }
    } else if (t.world_size != assemble.ranks) {
      throw InputError(files[i], "distributedInfo.world_size",
                       fmt::format("is {} here but {} in {}", t.world_size, assemble.ranks, first));
    }
    if (const auto it = file_of_rank.find(t.trace.rank); it != file_of_rank.end())
      throw InputError(files[i], "distributedInfo.rank",
                       fmt::format("rank {} is also traced by {}", t.trace.rank, it->second));
    file_of_rank.emplace(t.trace.rank, files[i]);
    traces.push_back(std::move(t.trace));
  }
  if (options.replicate) traces = replicate_ranks(traces, assemble.ranks);
  return assemble_job_graph(traces, assemble);
}

}  // namespace odcn::workload
