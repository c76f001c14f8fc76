// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): report's page (Documentation/tool.rst, "report"): the HTML
 * around the plots (report_svg.c) and the embedded data (report_json.c),
 * its style and the few lines of inline script that build sortable tables
 * from the data. Nothing is fetched: no network, no library. What cannot
 * be shown (raw entries, a recording without decoded entries, a model
 * without executions, files skipped with --keep-going) is said on the
 * page where the plot would be.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ui/report.h"
#include "analysis/fields.h"
#include "analysis/names.h"
#include "analysis/summary_columns.h"
#include "util/util.h"




static const char page_style[] =
	"body{font:14px/1.4 system-ui,-apple-system,'DejaVu Sans',sans-serif;margin:1.5em;"
	"color:#222;max-width:1000px}\n"
	"h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:2em}\n"
	".def{color:#666;font-size:.85em;margin:.2em 0 .6em}\n"
	".empty,.note{background:#fff4e5;border-left:4px solid #f28e2b;padding:.4em .8em}\n"
	"svg text{font:11px 'DejaVu Sans',sans-serif;fill:#333}\n"
	"svg .lbl{text-anchor:end}svg.ops .lbl{text-anchor:end}\n"
	"svg .sub{text-anchor:end;fill:#888;font-size:9px}\n"
	"svg .bg{fill:#f4f4f4}svg .tick{stroke:#bbb}svg .axis{fill:#666}\n"
	"svg .bin{fill:#4e79a7}svg .title{font-weight:bold}\n"
	".hosts{display:flex;flex-wrap:wrap;gap:12px}.hosts svg{background:#fafafa}\n"
	"svg .range{stroke:#555;stroke-width:1.5}svg .med{stroke:#222;stroke-width:2}\n"
	"svg .idle{fill:#f28e2b;fill-opacity:.12;stroke:#c0392b;stroke-width:1.2;"
	"stroke-dasharray:3 2}svg .idlerank{text-anchor:middle;fill:#c0392b;font-size:10px;"
	"font-weight:bold}\n"
	"table{border-collapse:collapse;font-size:12px;margin:.5em 0}\n"
	"th,td{border:1px solid #ddd;padding:2px 6px;text-align:right}\n"
	"th{background:#eee;cursor:pointer;user-select:none}th.asc:after{content:' \\25B2'}"
	"th.desc:after{content:' \\25BC'}\n"
	"td.s{text-align:left}details{margin:.4em 0}summary{cursor:pointer;color:#4e79a7}\n";

/*
 * Tables from the embedded data: each <div class="tbl" data-kind=K
 * data-rec=R data-core=C data-model=M> gets the rows of kind K; a click on
 * a column header sorts by it.
 */
static const char page_script[] =
	"(function(){\n"
	"var D=JSON.parse(document.getElementById('report-data').textContent);\n"
	"function ops(c){var r=[];c.engines.concat(c.topsps).forEach(function(u){u.ops.forEach("
	"function(o){r.push([u.label,o.op===null?'-':o.op,o.code,o.count,"
	"o.total_ns,o.median_ns,o.p95_ns,o.max_ns,o.busy_pct]);});});return r;}\n"
	"function units(c){return c.engines.concat(c.topsps).map(function(u){return [u.label,"
	"u.instructions,u.busy_ns,u.utilization_pct,u.dma_bytes===undefined?'':u.dma_bytes,"
	"u.dma_bytes_per_s===undefined?'':u.dma_bytes_per_s,u.lost,u.seq_gaps];});}\n"
	"function buckets(c){var us=c.engines.concat(c.topsps),r=[];for(var i=0;i<c.buckets;i++){"
	"var row=[i*c.bucket_ns];us.forEach(function(u){row.push(+(100*u.busy_ns_by_bucket[i]/"
	"c.bucket_ns).toFixed(2));});var d=0;c.engines.forEach(function(u){d+=u.dma_bytes_by_bucket[i];});"
	"row.push(+(d*1e3/c.bucket_ns).toFixed(2),c.executions_by_bucket[i],c.seq_gaps_by_bucket[i],"
	"c.throttle_level_by_bucket[i]);r.push(row);}return r;}\n"
	"function bucketcols(c){return ['at_ns'].concat(c.engines.concat(c.topsps).map(function(u){"
	"return u.label+' busy%';}),['dma_MB/s','executions','seq_gaps','throttle']);}\n"
	"function idle(c){var r=[];function add(l,gs){gs.forEach(function(g,i){r.push([l,i+1,"
	"g.idle_ns,g.at_ns,g.start_ns,g.end_ns,g.where]);});}add('core',c.idle_gaps);"
	"c.engines.concat(c.topsps).forEach(function(u){add(u.label,u.idle_gaps);});return r;}\n"
	"function errs(r){var x=[];r.cores.forEach(function(c){c.errors_by_code.forEach(function(e){"
	"x.push([c.device,c.core,e.code,e.name===null?'-':e.name,e.count,c.error_queue_lost,"
	"e.first_ns-c.first_ns,e.last_ns-c.first_ns,e.first_ns,e.last_ns]);});});"
	"var t=r.errors_total;t.errors_by_code.forEach(function(e){x.push(['all','all',e.code,"
	"e.name===null?'-':e.name,e.count,t.error_queue_lost,'','',e.first_ns,e.last_ns]);});"
	"return x;}\n"
	"function hist(h){return h.counts.map(function(n,i){return [h.lo_ns+i*h.bin_ns,"
	"h.lo_ns+(i+1)*h.bin_ns,n];});}\n"
	"var K={\n"
	" ops:[['unit','op','code','count','total_ns','median_ns','p95_ns','max_ns','busy%'],ops],\n"
	" units:[['unit','instructions','busy_ns','util%','dma_bytes','dma_bytes/s','lost',"
	"'seq_gaps'],units],\n"
	" buckets:[bucketcols,buckets],\n"
	" hostcores:[['recording','device','core','busy_ns','util%','inference_busy_ns',"
	"'executions'],function(){var r=[];D.recordings.forEach(function(x){x.cores.forEach("
	"function(c){r.push([x.path,c.device,c.core,c.busy_ns,c.utilization_pct,"
	"c.inference_busy_ns,c.executions]);});});return r;}],\n"
	" hostmodels:[['recording','model','count','min_ns','median_ns','p99_ns','max_ns'],"
	"function(){var r=[];D.recordings.forEach(function(x){x.models.forEach(function(m){"
	"var l=m.latency;r.push([x.path,m.model_id,l.count,l.min_ns,l.median_ns,l.p99_ns,"
	"l.max_ns]);});});return r;}],\n"
	" idle:[['unit','rank','idle_ns','at_ns','start_ns','end_ns','where'],idle],\n"
	" throttle:[['level','events','time_ns','span%'],function(c){return c.throttle.map("
	"function(t){return [t.level,t.events,t.time_ns,t.span_pct];});}],\n"
	" models:[['model','count','failed','min_ns','median_ns','p99_ns','max_ns','host_matched',"
	"'overhead_median_ns'],function(r){return r.models.map(function(m){var l=m.latency;return "
	"[m.model_id,l.count,m.failed,l.min_ns,l.median_ns,l.p99_ns,l.max_ns,m.host_matched,"
	"m.host_overhead.median_ns];});}],\n"
	" latency:[['from_ns','to_ns','executions'],function(m){return hist(m.latency_histogram);}],\n"
	" overhead:[['from_ns','to_ns','executions'],function(m){return hist(m.overhead_histogram);}],\n"
	" losses:[['file','record','records','queue','target','engine','lost','seq_gaps','explained'],"
	"function(r){return r.losses.map(function(l){return [l.file,l.record,l.records,l.queue_type,"
	"l.target_kind+' '+l.target_index,l.engine,l.lost,l.seq_gaps,l.explained?'yes':'NO'];});}],\n"
	" errors:[['device','core','code','name','count','lost on error queues','first_at_ns',"
	"'last_at_ns','first_ns','last_ns'],errs],\n"
	" raw:[['file','device','core','queue','engine','format','entries','device_entries','lost',"
	"'seq_gaps'],function(r){return r.raw_queues.map(function(q){return [q.file,q.device,q.core,"
	"q.queue_type,q.engine,q.format,q.entries,q.device_entries,q.lost,q.seq_gaps];});}],\n"
	" recordings:[['recording','files','entries','cores','util% (mean)','executions','lost',"
	"'seq_gaps'],function(){return D.recordings.map(function(r){var u=0,x=0,l=0,g=0;"
	"r.cores.forEach(function(c){u+=c.utilization_pct;x+=c.executions;l+=c.lost;g+=c.seq_gaps;});"
	"return [r.path,r.files,r.entries,r.cores.length,r.cores.length?+(u/r.cores.length)"
	".toFixed(2):0,x,l,g];});}]\n"
	"};\n"
	"function build(el){var k=K[el.dataset.kind],r=D.recordings[+el.dataset.rec],obj=D;"
	"if(r){obj=r;if(el.dataset.core!==undefined)obj=r.cores[+el.dataset.core];"
	"if(el.dataset.model!==undefined)obj=r.models[+el.dataset.model];}"
	"var cols=typeof k[0]==='function'?k[0](obj):k[0],rows=k[1](obj);"
	"var t=document.createElement('table'),h=t.createTHead().insertRow(),b=t.createTBody();"
	"cols.forEach(function(c,i){var th=document.createElement('th');th.textContent=c;"
	"th.onclick=function(){sort(t,i,th);};h.appendChild(th);});"
	"rows.forEach(function(row){var tr=b.insertRow();row.forEach(function(v){var td=tr.insertCell();"
	"td.textContent=v;if(typeof v!=='number')td.className='s';});});"
	"el.textContent='';el.appendChild(t);el.dataset.rows=rows.length;}\n"
	"function sort(t,i,th){var b=t.tBodies[0],rs=Array.prototype.slice.call(b.rows),"
	"d=th.classList.contains('asc')?-1:1;Array.prototype.forEach.call(th.parentNode.cells,"
	"function(c){c.className='';});th.className=d>0?'asc':'desc';rs.sort(function(x,y){"
	"var a=x.cells[i].textContent,c=y.cells[i].textContent,na=parseFloat(a),nc=parseFloat(c);"
	"if(!isNaN(na)&&!isNaN(nc))return (na-nc)*d;return a<c?-d:a>c?d:0;});"
	"rs.forEach(function(r){b.appendChild(r);});}\n"
	"Array.prototype.forEach.call(document.querySelectorAll('div.tbl'),build);\n"
	"document.body.dataset.rendered='yes';\n"
	"})();\n";

void html_table(FILE *f, const char *kind, size_t rec, long core, long model)
{
	fprintf(f, "<div class=\"tbl\" data-kind=\"%s\" data-rec=\"%zu\"", kind, rec);
	if (core >= 0)
		fprintf(f, " data-core=\"%ld\"", core);
	if (model >= 0)
		fprintf(f, " data-model=\"%ld\"", model);
	fputs("><noscript>The tables are built by the page's script, which is "
	      "disabled.</noscript></div>\n", f);
}

void html_numbers(FILE *f, const char *what, const char *kind, size_t rec, long core,
		    long model, bool open)
{
	fprintf(f, "<details%s><summary>%s</summary>\n", open ? " open" : "", what);
	html_table(f, kind, rec, core, model);
	fputs("</details>\n", f);
}

static void page_core(FILE *f, const struct rec_stats *s, size_t ri, size_t ci,
		      const struct core_timeline *t)
{
	const struct core_stats *c = &s->cores[ci];

	fprintf(f, "<h3 id=\"r%zu-d%u-c%u\">device %u (%s) NeuronCore %u</h3>\n", ri, c->dev, c->core,
		c->dev, arch_name(c->arch), c->core);
	fprintf(f, "<p>%" PRIu64 " entries over %s; %" PRIu64 " inferences in %zu executions "
		"(%s in inferences), busy %s (%.2f%%%s); %" PRIu64 " lost recorded, %" PRIu64
		" missing from sequence numbers.</p>\n", c->entries,
		D(c->any ? c->last - c->first : 0), c->inferences, c->ct ? c->ct->nexec : 0,
		D(c->infer_busy), D(c->busy), c->util_pct,
		c->lossy ? " of observed time" : "", c->lost, c->gaps);
	if (c->lossy)
		fprintf(f, "<p class=\"losses\">Losses: busy time and utilisation are over "
			"observed time only, %s of the %s span (%s in loss windows, shaded on "
			"the strips); %" PRIu64 " instructions cut by a loss are left out.</p>\n",
			D(c->observed), D(c->any ? c->last - c->first : 0),
			D((c->any ? c->last - c->first : 0) - c->observed), c->cut);
	fprintf(f, "<h4>Utilisation over time</h4>\n<p class=\"def\">Busy fraction of each engine "
		"and TopSP per time bucket of %s (%zu buckets from the core's first timestamp), "
		"the %u longest idle gaps of each unit (on its strip) and of the core (between "
		"inferences), outlined and numbered longest first, executions and the "
		"nrt_execute calls that started them (&#9660;), sequence gaps where they were "
		"seen, the throttle level and the DMA bandwidth. Defined in " DOC_MODEL
		" (busy time, idle gap, execution, host call, throttling, DMA bandwidth) and "
		DOC_OVERTIME ".</p>\n", D(t->width), t->nb, s->top);
	if (!c->nunits && !(c->ct && c->ct->nexec))
		fputs("<p class=\"empty\">No engine or TopSP entries and no executions on this "
		      "core: nothing to draw over time.</p>\n", f);
	svg_timeline(f, s, c, t);
	html_numbers(f, "Numbers behind the plot: per bucket", "buckets", ri, (long)ci, -1, false);
	html_numbers(f, "Per engine and TopSP", "units", ri, (long)ci, -1, true);
	if (c->idle.n || core_any_unit_gaps(c))
		html_numbers(f, "Longest idle gaps (as summary&rsquo;s &ldquo;longest idle gaps&rdquo;)",
			"idle", ri, (long)ci, -1, true);
	else
		fputs("<p>No idle gaps on this core (fewer than two inferences, and no unit with "
		      "two instructions apart).</p>\n", f);
	if (c->nlevels)
		html_numbers(f, "Time per throttle level", "throttle", ri, (long)ci, -1, false);
	fprintf(f, "<h4>Top ops per engine and TopSP</h4>\n<p class=\"def\">Total time of the %u ops "
		"with the most time per unit, as summary's &ldquo;top ops per unit by total "
		"time&rdquo;; count, median and p95 in the table. Defined in " DOC_MODEL
		" (instruction duration, distributions) and " DOC_SUMMARY ".</p>\n", s->top);
	svg_ops(f, c, s->top);
	html_numbers(f, "Numbers behind the plot: ops", "ops", ri, (long)ci, -1, true);
}

/*
 * Errors by code: per core, each code its ERROR and TOPSP_ERROR entries
 * carried (summary's &ldquo;errors by code&rdquo;, with the device's name and
 * the last time), then the recording's total per code; what the error
 * queues lost beside the counts, which are of the entries delivered.
 */
static void page_errors(FILE *f, const struct rec_stats *s, size_t ri)
{
	uint64_t total = 0, lost = 0;

	for (size_t i = 0; i < s->ncores; i++) {
		total += s->cores[i].errors;
		lost += error_queue_lost(&s->cores[i]);
	}
	fputs("<h3>Errors by code</h3>\n<p class=\"def\">Per NeuronCore, each code of its ERROR "
	      "and TOPSP_ERROR entries with its count, the device&rsquo;s name of the code where "
	      "it names it, its first and last time (offsets from the core&rsquo;s first "
	      "timestamp, and absolute); then the total per code of the recording (device and "
	      "core &ldquo;all&rdquo;), as summary&rsquo;s &ldquo;errors by code&rdquo;. Defined "
	      "in " DOC_SUMMARY ".</p>\n", f);
	if (lost) {
		fprintf(f, "<p class=\"note errlost\" data-lost=\"%" PRIu64 "\">The error queues "
			"lost %" PRIu64 " entr%s (", lost, lost, lost == 1 ? "y" : "ies");
		for (size_t i = 0, k = 0; i < s->ncores; i++) {
			const struct core_stats *c = &s->cores[i];
			uint64_t n = error_queue_lost(c);

			if (n)
				fprintf(f, "%sdevice %u NeuronCore %u: %" PRIu64, k++ ? ", " : "",
					c->dev, c->core, n);
		}
		fputs("): each was an error whose code is not known, so the counts above are "
		      "of the errors delivered. See " DOC_LOSSES ".</p>\n", f);
	}
	if (!total)
		fputs("<p class=\"empty noerrors\">No errors: no ERROR or TOPSP_ERROR entry in "
		      "this recording.</p>\n", f);
	else
		html_table(f, "errors", ri, -1, -1);
}

static void page_recording(FILE *f, const struct rec_stats *s, const struct rec_timeline *tl,
			   size_t ri)
{
	const struct recording *r = s->rec;

	fprintf(f, "<section class=\"recording\" id=\"r%zu\">\n<h2>Recording ", ri);
	html_esc(f, r->path);
	fprintf(f, "</h2>\n<p>%zu file%s, %" PRIu64 " entries, %zu NeuronCore%s%s.</p>\n", r->nfiles,
		r->nfiles == 1 ? "" : "s", s->entries, s->ncores, s->ncores == 1 ? "" : "s",
		r->sys && r->sys->ntrace ? ", with a system trace" : ", no system trace");
	/* The capture ranges, as summary says them. */
	for (size_t i = 0; i < r->nfiles; i++) {
		char line[PATH_MAX + 160];

		if (!recording_range_text(r->files[i], line, sizeof(line)))
			continue;
		fputs("<p class=\"range\">", f);
		html_esc(f, line);
		fputs(".</p>\n", f);
	}
	if (s->nraws)
		fprintf(f, "<p class=\"note\">%" PRIu64 " raw entries in %zu queues are not decoded "
			"(their layout is not known): they give no utilisation, op, latency or "
			"throttling plot. They are listed below with their losses. See " DOC_RAW
			".</p>\n", s->raw_entries, s->nraws);
	if (!s->ncores)
		fprintf(f, "<p class=\"empty\">No decoded entries in this recording: no "
			"NeuronCore to plot%s.</p>\n", r->nfiles ? "" : " (a system profile alone)");
	for (size_t i = 0; i < s->ncores; i++)
		page_core(f, s, ri, i, &tl->cores[i]);

	fputs("<h3>Execution latency per model</h3>\n<p class=\"def\">Histograms of the device "
	      "latency of each execution (first inference start to last stop) and of the host "
	      "overhead around it (the nrt_execute call's duration minus the latency) where a "
	      "call started it. Defined in " DOC_MODEL " (execution, host call) and " DOC_SUMMARY
	      ".</p>\n", f);
	if (!s->nmodels)
		fputs("<p class=\"empty\">No executions in this recording (no INFER_STATUS "
		      "start/stop pairs): no latency to show.</p>\n", f);
	for (size_t i = 0; i < s->nmodels; i++) {
		const struct model_stats *m = &s->models[i];
		struct hist h;
		uint64_t *v;
		size_t n;

		v = model_values(s, m->model_id, false, &n);
		hist_of(&h, v, n);
		free(v);
		svg_hist(f, &h, "device latency", m->model_id, m->name);
		if (m->host_matched) {
			v = model_values(s, m->model_id, true, &n);
			hist_of(&h, v, n);
			free(v);
			svg_hist(f, &h, "host overhead", m->model_id, m->name);
		} else {
			fputs("<p class=\"empty\">", f);
			model_label(f, m->name, m->model_id);
			fputs(": no nrt_execute host call started an execution (no system trace, or "
			      "none matched): no host overhead.</p>\n", f);
		}
		html_numbers(f, "Numbers behind the plot: latency bins", "latency", ri, -1, (long)i,
			false);
		if (m->host_matched)
			html_numbers(f, "Numbers behind the plot: host overhead bins", "overhead", ri, -1,
				(long)i, false);
	}
	if (s->nmodels)
		html_numbers(f, "Per model", "models", ri, -1, -1, true);

	page_errors(f, s, ri);
	fputs("<h3>Lost entries</h3>\n<p class=\"def\">Per queue that lost entries: what its "
	      "rings counted (lost) and what is missing from its sequence numbers; where the "
	      "gaps were seen is marked on the timelines above. Defined in " DOC_LOSSES
	      ".</p>\n", f);
	if (!s->nlosses)
		fputs("<p>No queue lost entries.</p>\n", f);
	else
		html_table(f, "losses", ri, -1, -1);
	if (s->nraws) {
		fputs("<h3>Raw queues</h3>\n<p class=\"def\">Counted, never decoded. Defined in "
		      DOC_SUMMARY " (raw entries).</p>\n", f);
		html_table(f, "raw", ri, -1, -1);
	}
	fputs("</section>\n", f);
}

/* The PATHs, by name, separated by ", ". */
static void path_list(FILE *f, const char *const *paths, size_t npaths)
{
	for (size_t i = 0; i < npaths; i++) {
		if (i)
			fputs(", ", f);
		html_esc(f, paths[i]);
	}
}

/* The recordings side by side: their list, then the plots of report_svg.c. */
static void page_hosts(FILE *f, const struct rec_stats *st, size_t nrec)
{
	fputs("<h2>Recordings side by side</h2>\n<ul>", f);
	for (size_t i = 0; i < nrec; i++) {
		fprintf(f, "<li><a href=\"#r%zu\">", i);
		html_esc(f, st[i].rec->path);
		fputs("</a></li>", f);
	}
	fputs("</ul>\n", f);
	html_table(f, "recordings", nrec, -1, -1);
	fputs("<h3>Busy time per NeuronCore</h3>\n<p class=\"def\">One panel per recording "
	      "(machine), all on one axis, from 0 to the busiest core of all of them: the union "
	      "of the intervals of each core's engine and TopSP instructions (summary&rsquo;s "
	      "<code>busy_ns</code>). Defined in " DOC_MODEL " (busy time).</p>\n", f);
	host_plot(f, st, nrec, HOST_BUSY);
	fputs("<h3>Utilisation per NeuronCore</h3>\n<p class=\"def\">Busy time over each core's "
	      "active span, 0 to 100% in every panel. Defined in " DOC_MODEL
	      " (utilisation).</p>\n", f);
	host_plot(f, st, nrec, HOST_UTIL);
	html_numbers(f, "Numbers behind the plots: per recording and core", "hostcores", nrec, -1, -1,
		false);
	fputs("<h3>Execution latency per model</h3>\n<p class=\"def\">Per recording and model, "
	      "the executions' device latency: a line from the shortest to the longest, a box "
	      "from the median (the dark tick) to p99, the median and the count written after; "
	      "one axis for all the panels, from 0 to the longest execution of all. Defined in "
	      DOC_MODEL " (execution, distributions) and " DOC_SUMMARY ".</p>\n", f);
	host_plot(f, st, nrec, HOST_LAT);
	html_numbers(f, "Numbers behind the plot: per recording and model", "hostmodels", nrec, -1, -1,
		false);
}


void report_page(FILE *f, const char *const *paths, size_t npaths, size_t skipped,
		 struct rec_stats *st, struct rec_timeline *tl, size_t nrec, size_t nbuckets,
		 uint64_t entries)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
	      "<title>neuronprof report: ", f);
	path_list(f, paths, npaths);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>neuronprof report: ",
		page_style);
	path_list(f, paths, npaths);
	fprintf(f, "</h1>\n<p>%zu recording%s, %" PRIu64 " entries; made by neuronprof "
		"(libneuronprof %s) with the statistics of <code>neuronprof summary</code>. "
		"Times are offsets from each core's first timestamp.</p>\n", nrec,
		nrec == 1 ? "" : "s", entries, nprof_version_string());
	if (skipped)
		fprintf(f, "<p class=\"note\">%zu file%s did not read and %s left out "
			"(--keep-going; the warnings name %s).</p>\n", skipped,
			skipped == 1 ? "" : "s", skipped == 1 ? "is" : "are",
			skipped == 1 ? "it" : "them");
	if (nrec > 1)
		page_hosts(f, st, nrec);
	for (size_t i = 0; i < nrec; i++)
		page_recording(f, &st[i], &tl[i], i);
	report_json_data(f, paths, npaths, skipped, st, tl, nrec, nbuckets);
	fprintf(f, "<script>\n%s</script>\n</body>\n</html>\n", page_script);
}
