#include "sched/topoopt.hpp"
