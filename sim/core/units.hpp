#pragma once
// Units used throughout odcnsim. Quantities are plain doubles, but every name that holds one carries its
// unit (Bytes, Seconds, BytesPerSecond), and conversions from the units found in input files live here.
namespace odcn {

using Bytes = double;           ///< always a whole number of bytes in practice (SimGrid moves integer bytes)
using Seconds = double;
using BytesPerSecond = double;

/// 1 Gb/s = 1e9 bits per second = 1.25e8 bytes per second (decimal units, as optics vendors quote).
constexpr BytesPerSecond gbps_to_bytes_per_s(double gbps) { return gbps * 1e9 / 8.0; }
/// Model sizes in the seeds are decimal gigabytes.
constexpr Bytes gigabytes(double gb) { return gb * 1e9; }
constexpr Seconds microseconds(double us) { return us * 1e-6; }
constexpr Seconds milliseconds(double ms) { return ms * 1e-3; }

}  // namespace odcn
