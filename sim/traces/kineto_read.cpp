// Reading a Kineto trace: gzip inflated as it is read, and the JSON read event by event (SAX).
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

#include "traces/kineto_internal.hpp"

namespace odcn::workload::kineto_internal {

namespace {

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

bool is_event_key(const std::string& k) {
  return k == "ph" || k == "cat" || k == "name" || k == "ts" || k == "dur" || k == "tid";
}

// The arguments that the import reads: of record_param_comms and NCCL kernels (the first 15), and where GPU
// operations, runtime calls and stream waits ran (libkineto/src/CuptiActivity.h, metadataJson).
constexpr std::array<const char*, 19> kArgKeys{
    "Collective name", "In msg nelems",     "Out msg nelems",     "dtype", "Process Group Name", "Process Group Ranks",
    "Group size",      "Global rank start", "Global rank stride", "Rank",  "Src Rank",           "Dst Rank",
    "In split size",   "Out split size",    "External id",        "stream", "correlation",       "wait_on_stream",
    "wait_on_cuda_event_record_corr_id"};

bool is_arg_key(const std::string& k) {
  return std::any_of(kArgKeys.begin(), kArgKeys.end(), [&](const char* a) { return k == a; });
}

/// A number of microseconds as Kineto writes it ("4458676416788.066"), read exactly into nanoseconds: a
/// double holds only ~16 digits, and a step's compute is a difference of such timestamps. Digits beyond the
/// nanosecond are rounded.
Nanos micros_to_ns(const JsonValue& v, const std::string& file, const std::string& field, bool may_be_negative,
                   Nanos max_abs) {
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
  std::uint64_t ns = 0;  // at most 19 digits: below 1.8e19
  const long long shift = static_cast<long long>(scale) + 3;  // to nanoseconds
  const long long n = static_cast<long long>(digits.size());
  const auto out_of_range = [&]() {
    return InputError(file, field,
                      fmt::format("is out of range (at most {:.0e} microseconds; got '{}')",
                                  static_cast<double>(max_abs) / 1e3, shown(v.text)));
  };
  if (!digits.empty()) {
    if (shift >= 0) {
      if (n + shift > 19) throw out_of_range();
      for (char c : digits) ns = ns * 10 + static_cast<std::uint64_t>(c - '0');
      for (long long k = 0; k < shift; ++k) ns *= 10;
    } else if (n + shift > 0) {
      if (n + shift > 19) throw out_of_range();
      const auto keep = static_cast<std::size_t>(n + shift);
      for (std::size_t k = 0; k < keep; ++k) ns = ns * 10 + static_cast<std::uint64_t>(digits[k] - '0');
      if (digits[keep] >= '5') ++ns;
    } else if (n + shift == 0 && digits.front() >= '5') {
      ns = 1;
    }
  }
  if (ns > static_cast<std::uint64_t>(max_abs)) throw out_of_range();
  if (negative && ns != 0 && !may_be_negative)
    throw InputError(file, field, fmt::format("must be >= 0 (got {})", shown(v.text)));
  const auto out = static_cast<Nanos>(ns);
  return negative ? -out : out;
}

class TraceReader : public nlohmann::json_sax<Json>, public KinetoEvents {
 public:
  /// `input_ended(position)`: whether the parser had read past the last byte of the JSON when it stopped at
  /// `position` (nlohmann counts reading the end of the input as one more byte).
  TraceReader(std::string file, std::function<bool(std::size_t)> input_ended)
      : file_(std::move(file)), input_ended_(std::move(input_ended)) {}


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
    const Nanos start = micros_to_ns(m.value("ts"), file_, m.field("ts"), true, kMaxTimestampNanos);
    const Nanos end = start + micros_to_ns(m.value("dur"), file_, m.field("dur"), false, kMaxAbsNanos);
    first_start = std::min(first_start.value_or(start), start);
    last_end = std::max(last_end.value_or(end), end);
    JsonValue args;
    args.kind = JsonValue::Kind::object;
    for (auto& [k, v] : ev.members)
      if (k == "args") args = std::move(v);
    if (on_gpu_event(index, m, cat, name, start, end, args)) return;
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
    }
  }

  /// An integer argument, or nullopt without it.
  std::optional<std::int64_t> integer_arg(const JsonValue& args, const char* key, const JsonMap& m) const {
    const JsonValue* v = member(args, key);
    if (!v) return std::nullopt;
    return spec::json_integer(*v, file_, join_field(m.field("args"), key), std::numeric_limits<std::int64_t>::min(),
                              std::numeric_limits<std::int64_t>::max());
  }

  /// Keeps what the streams need of GPU operations, runtime calls and stream waits; true when the event was one.
  bool on_gpu_event(std::size_t index, const JsonMap& m, const std::string& cat, const std::string& name, Nanos start,
                    Nanos end, const JsonValue& args) {
    if (cat == "cuda_runtime" || cat == "cuda_driver") {
      if (const auto c = integer_arg(args, "correlation", m)) launches.emplace(*c, start);
      return true;
    }
    if (cat == "cuda_sync") {
      if (name != "Stream Wait Event") return true;
      saw_sync = true;
      StreamWait w;
      w.index = index;
      const auto stream = integer_arg(args, "stream", m), corr = integer_arg(args, "correlation", m);
      const auto on = integer_arg(args, "wait_on_stream", m);
      const auto record = integer_arg(args, "wait_on_cuda_event_record_corr_id", m);
      // Kineto writes -1 when CUPTI did not say which event record the wait is for.
      if (!stream || !corr || !on || !record || *on < 0 || *record < 0) return true;
      w.stream = *stream;
      w.correlation = *corr;
      w.on_stream = *on;
      w.record_correlation = *record;
      waits.push_back(w);
      return true;
    }
    if (cat != "kernel" && cat != "gpu_memcpy" && cat != "gpu_memset") return false;
    GpuPlace place;
    place.stream = integer_arg(args, "stream", m);
    if (!place.stream && m.has("tid") && m.value("tid").kind == JsonValue::Kind::number)
      place.stream = spec::json_integer(m.value("tid"), file_, m.field("tid"), std::numeric_limits<std::int64_t>::min(),
                                        std::numeric_limits<std::int64_t>::max());
    place.correlation = integer_arg(args, "correlation", m);
    if (cat == "kernel" && member(args, "Collective name")) {
      NcclKernel k;
      k.index = index;
      k.start = start;
      k.end = end;
      k.external_id = external_id(args, file_, m.field("args"));
      k.signature = signature(args);
      k.place = place;
      kernels.push_back(std::move(k));
    } else {
      gpu_ops.push_back({index, start, end, place});
    }
    return true;
  }

  std::string file_;
  std::function<bool(std::size_t)> input_ended_;
  std::vector<Frame> stack_;
};

}  // namespace

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
    return import_events(reader, file, options, whole_trace);
  }
  TraceReader reader(file, [&](std::size_t position) { return position > bytes.size(); });
  Json::sax_parse(bytes, &reader);
  return import_events(reader, file, options, whole_trace);
}

}  // namespace odcn::workload::kineto_internal
