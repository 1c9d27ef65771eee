// How every command reports the failure in flight: one line on stderr, and the exit code.
#include <cxxabi.h>

#include <iostream>
#include <new>
#include <typeinfo>

#include "app/commands.hpp"
#include "core/error.hpp"
#include "core/text.hpp"

namespace odcn::app {

int report_failure() {
  try {
    throw;
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const IoError& e) {
    std::cerr << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "odcnsim: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "odcnsim: internal error: " << escape_line(e.what()) << "\n";
    return 1;
  } catch (...) {
    const std::type_info* type = abi::__cxa_current_exception_type();
    std::cerr << "odcnsim: internal error: an exception of type " << (type ? type->name() : "unknown") << "\n";
    return 1;
  }
}

}  // namespace odcn::app
