#!/usr/bin/python3
"""
A second test lab built on Django REST Framework with its defaults (Debian's
python3-djangorestframework, run with /usr/bin/python3): a real SQLite database, DRF's standard
page-number pagination (`count`/`next`/`previous`/`results`, its own page size, 404 past the end),
its user-rate throttling (429 with Retry-After), its error bodies (`{"detail": ...}`, field-keyed
validation errors), its content negotiation (406 for `Accept: application/pdf` on a JSON API) and
Django's FileResponse, behind Django's CommonMiddleware (a slash is appended by redirect).

    /usr/bin/python3 test/drf/serve.py --db /tmp/lab.sqlite3 [--reports 137] [--throttle 20/s]

prints one JSON line {"port": ..., "token": ...} when it listens on 127.0.0.1, and serves until
stdin closes or it is terminated.
"""
import argparse
import datetime
import json
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

TOKEN = 'drf-lab-token-0123456789abcdef'
MATRICES = ['Soil', 'Water', 'Rock', 'Sediment', 'Air filter']
TYPES = ['Metals by ICP-MS', 'Anions by IC', 'PFAS', 'Total petroleum hydrocarbons', 'Microbiology']


def configure(db, throttle, page_size):
    from django.conf import settings
    settings.configure(
        DEBUG=False,
        SECRET_KEY='lab-data-drf-test-lab',
        ALLOWED_HOSTS=['*'],
        ROOT_URLCONF='labsite.api',
        INSTALLED_APPS=['django.contrib.contenttypes', 'django.contrib.auth', 'rest_framework', 'rest_framework.authtoken', 'labsite'],
        MIDDLEWARE=['django.middleware.common.CommonMiddleware'],
        DATABASES={'default': {'ENGINE': 'django.db.backends.sqlite3', 'NAME': db}},
        CACHES={'default': {'BACKEND': 'django.core.cache.backends.locmem.LocMemCache'}},
        USE_TZ=True,
        TIME_ZONE='UTC',
        DEFAULT_AUTO_FIELD='django.db.models.AutoField',
        REST_FRAMEWORK={
            'DEFAULT_AUTHENTICATION_CLASSES': ['labsite.auth.BearerTokenAuthentication'],
            'DEFAULT_PERMISSION_CLASSES': ['rest_framework.permissions.IsAuthenticated'],
            'DEFAULT_PAGINATION_CLASS': 'rest_framework.pagination.PageNumberPagination',
            'PAGE_SIZE': page_size,
            'DEFAULT_RENDERER_CLASSES': ['rest_framework.renderers.JSONRenderer'],
            'DEFAULT_THROTTLE_CLASSES': ['rest_framework.throttling.UserRateThrottle'],
            'DEFAULT_THROTTLE_RATES': {'user': throttle},
        },
    )
    import django
    django.setup()


def pdf_for(report_id, lines, pad_to=0):
    """A valid PDF (one page, Helvetica) naming the report, with a correct cross-reference table, padded with a comment to about `pad_to` bytes."""
    text = ' '.join(f'({line.replace("(", "[").replace(")", "]")}) Tj 0 -16 Td' for line in lines)
    stream = f'BT /F1 14 Tf 72 720 Td {text} ET'.encode('latin-1', 'replace')
    objects = [
        b'<< /Type /Catalog /Pages 2 0 R >>',
        b'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        b'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
        b'<< /Length ' + str(len(stream)).encode() + b' >>\nstream\n' + stream + b'\nendstream',
        b'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ]
    out = bytearray(b'%PDF-1.4\n')
    while len(out) < pad_to:
        out += b'%' + b'lab-data padding ' * 4 + b'\n'
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f'{number} 0 obj\n'.encode() + body + b'\nendobj\n'
    xref = len(out)
    out += f'xref\n0 {len(objects) + 1}\n0000000000 65535 f \n'.encode()
    for offset in offsets:
        out += f'{offset:010d} 00000 n \n'.encode()
    out += f'trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n'.encode()
    return bytes(out)


def seed(reports, pdf_bytes):
    from django.contrib.auth.models import User
    from django.db import transaction
    from rest_framework.authtoken.models import Token
    from labsite.models import Client, Project, Report, Sample

    if Report.objects.exists():
        return
    start = datetime.datetime(2026, 1, 5, 8, 0, tzinfo=datetime.timezone.utc)
    with transaction.atomic():
        user = User.objects.create_user('analyst')
        Token.objects.create(user=user, key=TOKEN)
        # Names are typed by people: one carries a line break and a right-to-left override.
        clients = [Client.objects.create(client_id=f'C-{n:03d}', name=name) for n, name in enumerate(['Northwind Water', 'Alder Mining', 'Harbour Council\n\u202e(legacy)'], start=1)]
        projects = [Project.objects.create(project_id=f'P-{n:03d}', client=clients[n % 3], name=f'Site {n}', kind='location' if n % 2 else 'project') for n in range(1, 6)]
        samples = []
        for n in range(1, reports * 2 + 1):
            project = projects[n % 5]
            samples.append(Sample.objects.create(sample_id=f'S-{n:05d}', client=project.client, project=project, matrix=MATRICES[n % 5], status='complete', received_at=start + datetime.timedelta(hours=n)))
        for n in range(1, reports + 1):
            project = projects[n % 5]
            report_id = f'DRF-{n:05d}'
            available = n % 10 != 0
            report = Report.objects.create(
                report_id=report_id,
                report_type=TYPES[n % 5],
                status=['final', 'amended', 'preliminary'][n % 3],
                published_at=start + datetime.timedelta(hours=3 * n),
                download_available=available,
                client=project.client,
                project=project,
                pdf=pdf_for(report_id, [f'Report {report_id}', f'Client {project.client.name}', TYPES[n % 5]], pdf_bytes) if available else None,
            )
            report.samples.set(samples[2 * n - 2: 2 * n])


def serve():
    parser = argparse.ArgumentParser()
    parser.add_argument('--db', required=True)
    parser.add_argument('--reports', type=int, default=137)
    parser.add_argument('--throttle', default='100000/min')
    parser.add_argument('--page-size', type=int, default=20)
    parser.add_argument('--pdf-bytes', type=int, default=0)
    args = parser.parse_args()
    configure(args.db, args.throttle, args.page_size)

    from django.core.management import call_command
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
    from django.core.wsgi import get_wsgi_application

    call_command('migrate', run_syncdb=True, verbosity=0)
    seed(args.reports, args.pdf_bytes)

    class Handler(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadedWSGIServer(('127.0.0.1', 0), Handler)
    server.set_app(get_wsgi_application())
    threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
    print(json.dumps({'port': server.server_address[1], 'token': TOKEN}), flush=True)
    server.serve_forever()


if __name__ == '__main__':
    serve()
