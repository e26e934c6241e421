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

/*
 * The read rate assumed, as a multiple of the write rate, for what a run
 * will read before it has read anything: the read groups of a job run that
 * writes first (the pi profile's dd and fio random writes, 70 s before its
 * first read at 20/10 MiB/s), the read-back of verify and image after
 * their write. Twice: the test bed's ratio, between an SSD's 1:1 and a
 * cheap card's 10:1; either of those makes the estimate short or long
 * until the first read has run. The write rate itself (what the job runner
 * assumed before) overcounted the pi profile's three 80 MiB reads at 20/10
 * by 12 s of the 33 left.
 */
#define SB_PROGRESS_READ_PER_WRITE 2.0

#endif
