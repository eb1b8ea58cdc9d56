/* What `herd sim` reports: the figures (utilization, waits, bounded
 * slowdown, makespan), the per-job CSV and the SVG chart of utilization,
 * queue length and wait over time (drawn by hand: a few rectangles, polylines
 * and labels).  The replay itself is sim_run.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "common/xmalloc.h"
#include "herd/sim.h"

/* From submission to end: wait + run, or more for a job that was
 * preempted (requeued, suspended) and ran again. */
double sim_bsld(const struct sim_outcome *job)
{
	int64_t denom = job->run > SIM_BSLD_TAU ? job->run : SIM_BSLD_TAU;
	double b = (double)(job->end - job->submit) / (double)denom;
	return b > 1.0 ? b : 1.0;
}

/* Utilization: the CPU-seconds the jobs ran over procs x makespan, the
 * makespan running from the first submission to the last end. */
void sim_metrics_compute(const struct sim_outcome *jobs, size_t n, long procs,
			 struct sim_metrics *m)
{
	int64_t first = 0, last = 0, wait_sum = 0, area = 0;
	double bsld_sum = 0;

	memset(m, 0, sizeof(*m));
	m->njobs = n;
	if (n == 0)
		return;
	first = jobs[0].submit;
	last = jobs[0].end;
	for (size_t i = 0; i < n; i++) {
		int64_t wait = jobs[i].start - jobs[i].submit;
		if (jobs[i].submit < first)
			first = jobs[i].submit;
		if (jobs[i].end > last)
			last = jobs[i].end;
		if (wait > m->max_wait)
			m->max_wait = wait;
		wait_sum += wait;
		area += jobs[i].procs * jobs[i].run;
		bsld_sum += sim_bsld(&jobs[i]);
	}
	m->makespan = last - first;
	m->mean_wait = (double)wait_sum / (double)n;
	m->mean_bsld = bsld_sum / (double)n;
	m->utilization = m->makespan > 0 && procs > 0
				 ? (double)area / ((double)procs * (double)m->makespan) : 0;
}

/* One CSV field, quoted (RFC 4180) when it holds a comma, a quote or a
 * line break: a node list "n[1,3]" does. */
static void csv_field(FILE *f, const char *s)
{
	if (!s)
		s = "";
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int sim_write_csv(FILE *f, const struct sim_result *res)
{
	fputs("job_id,submit,start,end,wait,run_time,estimate,procs,bounded_slowdown,"
	      "jobid,jobname,user,nodelist,last_start\n", f);
	for (size_t i = 0; i < res->njobs; i++) {
		const struct sim_outcome *j = &res->jobs[i];
		fprintf(f, "%ld,%lld,%lld,%lld,%lld,%lld,%lld,%ld,%.6f,", j->id, (long long)j->submit,
			(long long)j->start, (long long)j->end, (long long)(j->start - j->submit),
			(long long)j->run, (long long)j->estimate, j->procs, sim_bsld(j));
		csv_field(f, j->jobid);
		fputc(',', f);
		csv_field(f, j->name);
		fputc(',', f);
		csv_field(f, j->user);
		fputc(',', f);
		csv_field(f, j->nodes);
		if (*j->jobid)
			fprintf(f, ",%lld\n", (long long)j->last_start);
		else
			fputs(",\n", f);
	}
	return ferror(f) ? -1 : 0;
}

#define SVG_W 960
#define SVG_PANEL_H 200
#define SVG_LEFT 70
#define SVG_RIGHT 20
#define SVG_TOP 50
#define SVG_GAP 60
#define SVG_BINS 800

/* The time-weighted mean of each series (busy CPUs, queue length) over
 * nbins equal bins of [t0, t1): the value of a sample holds until the next. */
static void bin_series(const struct sim_result *res, int64_t t0, int64_t t1, int nbins,
		       double *busy, double *queued)
{
	double width = (double)(t1 - t0) / nbins;
	for (size_t k = 0; k < res->nsamples; k++) {
		double a = (double)(res->samples[k].time - t0);
		double b = k + 1 < res->nsamples ? (double)(res->samples[k + 1].time - t0)
						 : (double)(t1 - t0);
		if (b <= a)
			continue;
		for (int i = (int)(a / width); i < nbins && i * width < b; i++) {
			double lo = fmax(a, i * width), hi = fmin(b, (i + 1) * width);
			if (hi <= lo)
				continue;
			busy[i] += res->samples[k].busy_cpus * (hi - lo) / width;
			queued[i] += res->samples[k].queued * (hi - lo) / width;
		}
	}
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
}

/* One panel: a frame, the y labels (0, half, max), the series. */
static void panel(FILE *f, int top, const char *label, const double *v, int nbins, double vmax,
		  const char *fmt_max, double label_max)
{
	int w = SVG_W - SVG_LEFT - SVG_RIGHT, h = SVG_PANEL_H;
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>\n",
		SVG_LEFT, top, w, h);
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"13\">", SVG_LEFT, top - 6);
	xml_text(f, label);
	fputs("</text>\n", f);
	for (int t = 0; t <= 2; t++) {
		char buf[32];
		snprintf(buf, sizeof(buf), fmt_max, label_max * t / 2);
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
			SVG_LEFT - 6, top + h - h * t / 2 + 4, buf);
	}
	fprintf(f, "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1\" points=\"");
	for (int i = 0; i < nbins; i++) {
		double x = SVG_LEFT + (i + 0.5) * w / nbins;
		double y = top + h - (vmax > 0 ? fmin(v[i] / vmax, 1.0) : 0) * h;
		fprintf(f, "%s%.1f,%.1f", i ? " " : "", x, y);
	}
	fputs("\"/>\n", f);
}

/* The mean wait (hours) of the jobs that started in each bin; a bin in
 * which none started carries the last value (0 before the first). */
static void bin_waits(const struct sim_result *res, int64_t t0, int64_t t1, int nbins,
		      double *wait)
{
	double *sum = xmalloc(nbins * sizeof(double)), *n = xmalloc(nbins * sizeof(double));

	for (size_t i = 0; i < res->njobs; i++) {
		const struct sim_outcome *j = &res->jobs[i];
		int b = (int)((double)(j->start - t0) * nbins / (double)(t1 - t0));
		b = b < 0 ? 0 : b >= nbins ? nbins - 1 : b;
		sum[b] += (double)(j->start - j->submit) / 3600;
		n[b]++;
	}
	for (int b = 0; b < nbins; b++)
		wait[b] = n[b] ? sum[b] / n[b] : b ? wait[b - 1] : 0;
	free(sum);
	free(n);
}

int sim_write_svg(FILE *f, const struct sim_result *res, const char *title)
{
	int64_t t0 = 0, t1 = 1;
	int nbins = SVG_BINS, height = SVG_TOP + 3 * SVG_PANEL_H + 2 * SVG_GAP + 50;
	double qmax = 0, wmax = 0;

	if (res->nsamples > 0) {
		t0 = res->samples[0].time;
		t1 = res->samples[res->nsamples - 1].time;
		if (t1 <= t0)
			t1 = t0 + 1;
	}
	double *busy = xmalloc(nbins * sizeof(double)), *queued = xmalloc(nbins * sizeof(double));
	double *wait = xmalloc(nbins * sizeof(double));
	bin_series(res, t0, t1, nbins, busy, queued);
	bin_waits(res, t0, t1, nbins, wait);
	for (int i = 0; i < nbins; i++) {
		qmax = fmax(qmax, queued[i]);
		wmax = fmax(wmax, wait[i]);
	}
	double qtop = qmax > 0 ? ceil(qmax) : 1, wtop = wmax > 0 ? ceil(wmax) : 1;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		SVG_W, height, SVG_W, height);
	fprintf(f, "<text x=\"%d\" y=\"24\" font-size=\"15\">", SVG_LEFT);
	xml_text(f, title);
	fputs("</text>\n", f);
	char label[96];
	snprintf(label, sizeof(label), "Utilization (%ld processors, mean per bin)", res->procs);
	panel(f, SVG_TOP, label, busy, nbins, (double)res->procs, "%.0f%%", 100);
	panel(f, SVG_TOP + SVG_PANEL_H + SVG_GAP, "Queue length (pending jobs, mean per bin)", queued,
	      nbins, qtop, "%.0f", qtop);
	panel(f, SVG_TOP + 2 * (SVG_PANEL_H + SVG_GAP),
	      "Wait (hours, mean of the jobs started in the bin; none started: the last)", wait,
	      nbins, wtop, "%.1f", wtop);
	int axis = SVG_TOP + 3 * SVG_PANEL_H + 2 * SVG_GAP;
	double span = (double)(t1 - t0);
	bool days = span >= 3 * 86400;
	for (int t = 0; t <= 4; t++) {
		double x = SVG_LEFT + (double)(SVG_W - SVG_LEFT - SVG_RIGHT) * t / 4;
		double at = span * t / 4 / (days ? 86400 : 3600);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%.1f</text>\n",
			x, axis + 16, at);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">%s since the first "
		   "event</text>\n</svg>\n",
		SVG_W / 2, axis + 36, days ? "days" : "hours");
	free(busy);
	free(queued);
	free(wait);
	return ferror(f) ? -1 : 0;
}
