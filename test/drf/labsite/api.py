"""Serializers, views and routes: what a DRF developer writes by default for the spec's endpoints."""
import io

from django.http import FileResponse, Http404, StreamingHttpResponse
from django.urls import include, path
from django.utils.dateparse import parse_datetime
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.routers import DefaultRouter

from .models import Client, Project, Report, Sample


class ClientSerializer(serializers.ModelSerializer):
    class Meta:
        model = Client
        fields = ['client_id', 'name', 'status']


class ProjectSerializer(serializers.ModelSerializer):
    client_id = serializers.CharField(read_only=True)

    class Meta:
        model = Project
        fields = ['project_id', 'client_id', 'name', 'kind', 'status']


class SampleSerializer(serializers.ModelSerializer):
    client_id = serializers.CharField(read_only=True)
    project_id = serializers.CharField(read_only=True)

    class Meta:
        model = Sample
        fields = ['sample_id', 'client_id', 'project_id', 'matrix', 'status', 'received_at']


class ReportSerializer(serializers.ModelSerializer):
    client_id = serializers.CharField(read_only=True)
    project_id = serializers.CharField(read_only=True)
    sample_ids = serializers.SerializerMethodField()

    class Meta:
        model = Report
        fields = ['report_id', 'report_type', 'status', 'published_at', 'download_available', 'client_id', 'project_id', 'sample_ids']

    def get_sample_ids(self, report):
        return [sample.sample_id for sample in report.samples.all()]


def since(request, name):
    value = request.query_params.get(name)
    if value is None:
        return None
    parsed = parse_datetime(value)
    if parsed is None or parsed.tzinfo is None:
        raise ValidationError({name: ['Enter a valid date/time with a time zone.']})
    return parsed


class FilteredViewSet(viewsets.ReadOnlyModelViewSet):
    """Filters by `client_id` and `project_id` where the model has them."""

    def get_queryset(self):
        queryset = self.queryset
        for name in ('client_id', 'project_id'):
            value = self.request.query_params.get(name)
            if value is not None and hasattr(queryset.model, name.replace('_id', '')):
                queryset = queryset.filter(**{name: value})
        return queryset


class ClientViewSet(FilteredViewSet):
    queryset = Client.objects.all()
    serializer_class = ClientSerializer


class ProjectViewSet(FilteredViewSet):
    queryset = Project.objects.all()
    serializer_class = ProjectSerializer


class SampleViewSet(FilteredViewSet):
    queryset = Sample.objects.all()
    serializer_class = SampleSerializer

    def get_queryset(self):
        queryset = super().get_queryset()
        received = since(self.request, 'received_since')
        return queryset if received is None else queryset.filter(received_at__gte=received)


class ReportViewSet(FilteredViewSet):
    queryset = Report.objects.all().prefetch_related('samples')
    serializer_class = ReportSerializer

    def get_queryset(self):
        queryset = super().get_queryset()
        status = self.request.query_params.get('status')
        if status is not None:
            if status not in dict(Report.STATUSES):
                raise ValidationError({'status': [f'Select a valid choice. {status} is not one of the available choices.']})
            queryset = queryset.filter(status=status)
        published = since(self.request, 'published_since')
        return queryset if published is None else queryset.filter(published_at__gte=published)

    @action(detail=True, url_path='file')
    def file(self, request, pk=None):
        report = self.get_object()
        if not report.download_available or report.pdf is None:
            raise Http404('No file is available for this report.')
        if report.status == 'amended':
            # Amended reports are rendered on demand, as a stream: no Content-Length, so Django's
            # server ends the body by closing the connection.
            data = bytes(report.pdf)
            chunks = (data[i:i + 16384] for i in range(0, len(data), 16384))
            response = StreamingHttpResponse(chunks, content_type='application/pdf')
            response['Content-Disposition'] = f'attachment; filename="{report.report_id}.pdf"'
            return response
        return FileResponse(io.BytesIO(bytes(report.pdf)), content_type='application/pdf', as_attachment=True, filename=f'{report.report_id}.pdf')


router = DefaultRouter()
router.register('reports', ReportViewSet)
router.register('clients', ClientViewSet)
router.register('projects', ProjectViewSet)
router.register('samples', SampleViewSet)

urlpatterns = [path('api/v1/', include(router.urls))]
