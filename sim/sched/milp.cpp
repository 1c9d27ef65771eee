#include "sched/milp.hpp"
