// SPDX-License-Identifier: GPL-2.0-only
/*
 * platform.c - which platform is in force (platform.h): native until a
 * run starts the simulator (sim/platform.c), which sets both below and
 * puts them back when the run ends.
 */
#include "platform.h"

const struct fl_platform_ops *fl__platform = &fl__native_ops;
bool fl__sim_active;
