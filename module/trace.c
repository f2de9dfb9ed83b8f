// SPDX-License-Identifier: GPL-2.0
/* Instantiates the module's tracepoints (memcg_bgreclaim:*). */
#define CREATE_TRACE_POINTS
#include "mbr_trace.h"
