import re,html,sys
def txt(p):
    s=open(p).read()
    s=re.sub(r"<style.*?</style>","",s,flags=re.S); s=re.sub(r"<svg.*?</svg>","[SVG]",s,flags=re.S)
    s=re.sub(r"<(br|/p|/tr|/h\d|/li|/div|/section|/summary)[^>]*>","\n",s); s=re.sub(r"<[^>]+>"," ",s)
    s=html.unescape(s); s=re.sub(r"[ \t]+"," ",s); s=re.sub(r"\n\s*\n+","\n",s)
    return s
print(txt(sys.argv[1]))
