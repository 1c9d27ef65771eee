#include "workload/kineto.hpp"
