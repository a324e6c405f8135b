/*
 * threads.c -- running work on POSIX threads.
 *
 * parse_trec's two passes, rank, find_duplicates and align run on up to
 * min(cores, RL_MAX_THREADS) threads for large inputs (RANKLENS_NUM_THREADS=N
 * caps it, 1 turns threads off; their `threads` argument sets it); each
 * splits its work so that the result does not depend on the count.
 */
#include "core.h"

#include <stdlib.h>

#include <pthread.h>
#include <unistd.h>

#define LINES_PER_THREAD 250000 /* below this a thread costs more than it saves */

/* How many threads to use for n lines or entries: `requested` (at most
 * RL_MAX_THREADS) when it is positive; otherwise min(online cores,
 * RL_MAX_THREADS, n / LINES_PER_THREAD), at least 1, capped by
 * RANKLENS_NUM_THREADS. */
int rl_worker_threads(int64_t n, int requested)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const char *env = getenv("RANKLENS_NUM_THREADS");
    int64_t t = cores > 0 ? (int64_t)cores : 1;
    if (requested > 0)
        return requested < RL_MAX_THREADS ? requested : RL_MAX_THREADS;
    if (env != NULL && *env != '\0') {
        long cap = strtol(env, NULL, 10);
        if (cap >= 1 && cap < t)
            t = (int64_t)cap;
    }
    if (t > RL_MAX_THREADS)
        t = RL_MAX_THREADS;
    if (t > n / LINES_PER_THREAD)
        t = n / LINES_PER_THREAD;
    return t < 1 ? 1 : (int)t;
}

/* Runs fn(jobs[t]) for every t < T: jobs[0] on the calling thread and the
 * others on new threads (jobs is an array of T elements of the given size);
 * a job whose thread cannot be started runs on the calling thread too.
 * Returns when all are done. */
void rl_run_jobs(void *(*fn)(void *), void *jobs, size_t size, int T)
{
    pthread_t tids[RL_MAX_THREADS];
    int started[RL_MAX_THREADS];
    int t;
    for (t = 1; t < T; t++)
        started[t] = pthread_create(&tids[t], NULL, fn, (char *)jobs + (size_t)t * size) == 0;
    fn(jobs);
    for (t = 1; t < T; t++) {
        if (started[t])
            pthread_join(tids[t], NULL);
        else
            fn((char *)jobs + (size_t)t * size);
    }
}

/* Splits queries [0, nq) (entries qo[0] .. qo[nq]) into T consecutive ranges
 * of about equal entry counts: range t is [first[t], first[t + 1]). */
void rl_split_queries(const int64_t *qo, int64_t nq, int T, int64_t *first)
{
    int64_t n = qo[nq] - qo[0], q = 0;
    int t;
    first[0] = 0;
    for (t = 0; t < T; t++) {
        int64_t target = qo[0] + (n * (t + 1)) / T;
        while (q < nq && (qo[q + 1] <= target || t == T - 1))
            q++;
        first[t + 1] = q;
    }
}
