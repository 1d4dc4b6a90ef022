// The list filters (web/lists.py): a filter left empty is not sent, so the URL a person bookmarks or shares names
// only what they chose (?status=unpaid, not ?q=&status=unpaid&overdue=…). Without JavaScript the form works the same.
document.addEventListener("submit", function (e) {
  var form = e.target;
  if (!form.classList || !form.classList.contains("list-filters")) return;
  Array.prototype.forEach.call(form.elements, function (el) {
    if (el.name && (el.value === "" || el.value == null) && !el.disabled) {
      el.disabled = true;
      window.setTimeout(function () { el.disabled = false; }, 0);
    }
  });
});
