#include "workload/chakra.hpp"
