#include "sched/topox.hpp"
