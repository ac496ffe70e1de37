// everett sweep report: the page is complete without this script; it adds
// a readout to the coverage chart, sortable assertion columns and copy
// buttons for commands.
(function () {
  "use strict";
  var svgNS = "http://www.w3.org/2000/svg";

  // Coverage readout: a cursor follows the pointer along the step line.
  var chart = document.getElementById("coverage-chart");
  var readout = document.getElementById("coverage-readout");
  var data = document.getElementById("coverage-points");
  var pts = [];
  try { pts = JSON.parse(data.textContent); } catch (e) { pts = []; }
  if (chart && readout) {
    var cursor = document.createElementNS(svgNS, "line");
    cursor.setAttribute("class", "cursor");
    cursor.setAttribute("visibility", "hidden");
    var dot = document.createElementNS(svgNS, "circle");
    dot.setAttribute("class", "cursor-dot");
    dot.setAttribute("r", "4");
    dot.setAttribute("visibility", "hidden");
    chart.appendChild(cursor);
    chart.appendChild(dot);
    var show = function (p) {
      // p = [seeds run, seed, edges, x, y]
      cursor.setAttribute("x1", p[3]); cursor.setAttribute("x2", p[3]);
      cursor.setAttribute("y1", chart.getAttribute("data-top"));
      cursor.setAttribute("y2", chart.getAttribute("data-bottom"));
      dot.setAttribute("cx", p[3]); dot.setAttribute("cy", p[4]);
      cursor.setAttribute("visibility", "visible");
      dot.setAttribute("visibility", "visible");
      readout.textContent = "after " + p[0] + " seed" + (p[0] === 1 ? "" : "s") +
        " (through seed " + p[1] + "): " + p[2] + " distinct edges";
    };
    chart.addEventListener("mousemove", function (ev) {
      if (!pts.length) { return; }
      var box = chart.getBoundingClientRect();
      var x = (ev.clientX - box.left) * (chart.viewBox.baseVal.width / box.width);
      // The last point at or before x: binary search on the x pixel.
      var lo = 0, hi = pts.length - 1;
      while (lo < hi) {
        var mid = (lo + hi + 1) >> 1;
        if (pts[mid][3] <= x) { lo = mid; } else { hi = mid - 1; }
      }
      show(pts[lo]);
    });
    if (pts.length) {
      show(pts[pts.length - 1]);
    }
  }

  // Sortable columns.
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      var type = th.getAttribute("data-type");
      if (!type) { return; }
      th.addEventListener("click", function () {
        var asc = !th.classList.contains("sorted-asc");
        Array.prototype.forEach.call(heads, function (h) { h.classList.remove("sorted-asc", "sorted-desc"); });
        th.classList.add(asc ? "sorted-asc" : "sorted-desc");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var key = function (r) {
          var c = r.cells[col];
          return type === "num" ? parseFloat(c.getAttribute("data-v")) : c.textContent;
        };
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          var d = type === "num" ? x - y : (x < y ? -1 : x > y ? 1 : 0);
          return asc ? d : -d;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });

  // Copy buttons for commands.
  Array.prototype.forEach.call(document.querySelectorAll("code.cmd"), function (code) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "copy";
    b.textContent = "copy";
    b.addEventListener("click", function () {
      var done = function () { b.textContent = "copied"; setTimeout(function () { b.textContent = "copy"; }, 1500); };
      if (navigator.clipboard) {
        navigator.clipboard.writeText(code.textContent).then(done, function () {});
      }
    });
    code.parentNode.insertBefore(b, code.nextSibling);
  });

  document.documentElement.setAttribute("data-js", "ready");
})();
