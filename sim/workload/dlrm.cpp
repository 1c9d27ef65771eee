#include "workload/dlrm.hpp"
