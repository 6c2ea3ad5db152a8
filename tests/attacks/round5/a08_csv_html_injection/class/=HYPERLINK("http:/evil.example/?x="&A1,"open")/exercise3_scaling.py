# a08: what a student controls reaches the staff's tools: a folder name that is a spreadsheet
# formula (grades.csv opened in Excel/LibreOffice), and printed text / an exception message with
# HTML in it (the --feedback page and the class report). Expected: the CSV cell is neutralised
# (e.g. a leading ') and the HTML escaped.
import math
print("<script>alert('printed')</script>")
def scale_scores(s, d_k):
    raise ValueError("<img src=x onerror=alert('exception')>")
def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
