/*
 * progress_int.h (runner-internal): what every runner's progress report
 * shares.
 */
#ifndef STORBENCH_PROGRESS_INT_H
#define STORBENCH_PROGRESS_INT_H

/* A test's, point's or phase's first second is "starting" and shows no
 * rate. After idle a throttle or a card hands out credit (8 MiB at once at
 * queue depth 8; a 4k read at 20 MiB/s read 25.8, an image write at 10
 * MiB/s 12.9 over its first 0.7 s), and a layout's first sync returns at
 * once (744 MiB/s); from one second on, the progress test on the throttled
 * bed saw every rate within 12% of the limit. */
#define SB_PROGRESS_STARTING_NS 1000000000ull

#endif
